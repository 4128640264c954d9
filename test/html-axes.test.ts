import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { axisRange, wholeSplits } from '../src/report/html/page/axes.js';
import { formatFigure, formatMetric } from '../src/report/html/format.js';
import { COLORS } from '../src/report/html/palette.js';

describe('chart axes', () => {
  it("gives flat percentages their unit's span, not 0–1", () => {
    assert.deepEqual(axisRange({ label: 'error rate', unit: '%', fromZero: true }, [0, 0]), [0, 100]);
    assert.deepEqual(axisRange({ label: 'WER', unit: '%', fromZero: true }, []), [0, 100]);
    assert.deepEqual(axisRange({ label: 'throughput', unit: 'audio s/s', fromZero: true }, [0, 0]), [0, 1]);
  });

  it('keeps reference lines and fixed bounds in range, with air above', () => {
    const [lo, hi] = axisRange({ label: 'ttft_ms', unit: 'ms', fromZero: true }, [120, 480, 800]);
    assert.equal(lo, 0);
    assert.ok(hi > 800 && hi < 900, String(hi));
    assert.deepEqual(axisRange({ label: 'at or below', unit: '%', min: 0, max: 100 }, [3, 40]), [0, 100]);
  });

  it('starts a concurrency axis at its lowest level, ticking whole sessions', () => {
    const [lo, hi] = axisRange({ label: 'concurrency', unit: 'sessions', whole: true }, [4, 8, 16]);
    assert.ok(lo > 3.5 && lo < 4, `${lo}: just below the lowest level, never 0`);
    assert.ok(hi > 16);
    assert.deepEqual(wholeSplits(lo, hi, 2), [4, 6, 8, 10, 12, 14, 16]);
    assert.deepEqual(wholeSplits(0.6, 8.4, 2), [1, 4, 6, 8], 'the first level, then steps that do not crowd it');
    assert.deepEqual(wholeSplits(0.6, 8.4, 0.5), [1, 2, 3, 4, 5, 6, 7, 8], 'never a fraction of a session');
  });

  it("never draws a series in the SLO lines' red", () => {
    const series = Object.entries(COLORS).filter(([name]) => ['p50', 'p95', 'p99', 'throughput', 'errorRate'].includes(name));
    for (const [name, color] of series) assert.notEqual(color, COLORS.slo, name);
  });
});

describe('figure formats', () => {
  it('shows word error rates as percentages and other ratios as ratios', () => {
    assert.equal(formatFigure(0, { unit: 'ratio', tags: ['quality'] }), '0.00 %');
    assert.equal(formatFigure(0.1234, { unit: 'ratio', tags: ['quality'] }), '12.34 %');
    assert.equal(formatFigure(0.5, { unit: 'ratio', tags: ['throughput'] }), '0.500 ×');
    assert.equal(formatFigure(1234.56, { unit: 'ms', tags: ['latency'] }), '1,234.6 ms');
    assert.equal(formatMetric(2048, 'bytes'), '2,048 B');
  });
});
