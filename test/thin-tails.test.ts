import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeMetrics } from '../src/metrics/catalog.js';
import type { Report } from '../src/report/schema.js';
import { thinTailLines } from '../src/report/thin-tails.js';

it('names each level whose headline latency has too few values for p95 or p99', () => {
  const level = (label: string, count: number | null) => ({ label, sessions: [], summary: { metrics: { ttft_ms: count === null ? null : { count } } } });
  const report = {
    config: { task: 'stt' },
    metricDefinitions: describeMetrics(),
    benchmarks: [level('concurrent@1', 6), level('concurrent@2', 45), level('concurrent@4', 100), level('concurrent@8', null)],
  } as unknown as Report;
  assert.deepEqual(thinTailLines(report), [
    'concurrent@1: p95 and p99 of ttft_ms rest on 6 values (trust p95 from 20, p99 from 100)',
    'concurrent@2: p99 of ttft_ms rests on 45 values (trust p99 from 100)',
  ]);
});
