import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderHtml } from '../src/report/html/index.js';
import type { Report } from '../src/report/schema.js';
import { levelOverTime } from '../src/report/time-series.js';
import { run } from '../src/run/run.js';

describe('the time panel', () => {
  it('charts the latency of measured, completed sessions only, as every other latency figure', async () => {
    const { report } = await run({ maxSessions: 4, pace: { kind: 'none' }, window: { warmup: { sessions: 1 }, cooldown: { sessions: 1 } } });
    const [level] = report.benchmarks;
    const byIndex = [...level!.sessions].sort((a, b) => a.index - b.index);
    assert.deepEqual(
      byIndex.map((s) => s.phase),
      ['warmup', 'measured', 'measured', 'cooldown'],
    );
    // The warm-up and cool-down sessions, and a measured one that failed, answer absurdly late: none of it is a figure.
    const late = 1e6;
    const tampered: Report = {
      ...report,
      benchmarks: [
        {
          ...level!,
          sessions: byIndex.map((s, i) => {
            if (i === 1) return s;
            const slow = { ...s, metrics: { ...s.metrics, inputs: s.metrics.inputs.map((m) => ({ ...m, ttft_ms: late })) } };
            return i === 2
              ? { ...slow, outcome: { status: 'failed' as const, failure: { class: 'server_closed' as const, stage: 'final' as const, message: 'closed' } } }
              : slow;
          }),
        },
      ],
    };
    const over = levelOverTime(tampered.benchmarks[0]!, 'ttft_ms');
    const shown = [...over.latency!.p50, ...over.latency!.p95].filter((v): v is number => v !== null);
    assert.ok(shown.length > 0, 'the measured completed session is charted');
    assert.ok(Math.max(...shown) < late, `only the measured completed session's ttft: ${shown.join(', ')}`);
    assert.equal(Math.max(...shown), byIndex[1]!.metrics.inputs[0]!.ttft_ms, "the headline's own value");
    assert.doesNotMatch(renderHtml(tampered), /1000000|1e\+?6/, 'the page draws no late value');
  });
});
