import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogHistogram } from '../src/metrics/log-histogram.js';
import { percentile } from '../src/metrics/stats.js';
import { seededRandom } from '../src/util/random.js';

describe('LogHistogram', () => {
  it('estimates percentiles within 2% of the exact type-7 value', () => {
    const random = seededRandom(7);
    // Latency-like data: log-normal around 300 ms, and a uniform spread.
    const sets = [
      Array.from({ length: 5000 }, () => 300 * Math.exp(0.5 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()))),
      Array.from({ length: 1000 }, (_, i) => 1 + i),
    ];
    for (const values of sets) {
      const histogram = new LogHistogram();
      for (const v of values) histogram.add(v);
      const sorted = Float64Array.from(values).sort();
      for (const p of [1, 50, 90, 95, 99]) {
        const exact = percentile(sorted, p);
        const estimate = histogram.percentile(p)!;
        assert.ok(Math.abs(estimate - exact) / exact < 0.02, `p${p}: ${estimate} against ${exact}`);
      }
    }
  });

  it('has no estimate before a value, and one value is its own estimate to 1%', () => {
    const histogram = new LogHistogram();
    assert.equal(histogram.percentile(50), undefined);
    histogram.add(412.3);
    histogram.add(Number.NaN);
    assert.equal(histogram.count, 1);
    assert.ok(Math.abs(histogram.percentile(50)! - 412.3) / 412.3 < 0.01);
  });
});
