import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderSummary } from '../src/report/console.js';
import type { Report } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { sharedTarget } from './helpers.js';

// What these tests check of a run's report does not depend on where the server runs (see sharedTarget).
const LOCAL = await sharedTarget();

const FAST = { kind: 'realtime', speed: 8 } as const;

describe('summary cautions', () => {
  it('warns when the measurement window leaves nothing to measure', async () => {
    // A warm-up in seconds: whether it covers every session is known only after the run.
    const { report } = await run({ ...LOCAL, maxSessions: 1, pace: FAST, window: { warmup: { ms: 3_600_000 } } });
    assert.match(
      renderSummary(report, { definitions: false }),
      /^warning: warm-up and cool-down leave out all 1 sessions, so no figure or throughput measures anything;/m,
    );
  });

  it('explains a negative avg_rtt_ms or ttlt_ms median and points to word_emission_ms', async () => {
    const { report } = await run({ ...LOCAL, maxSessions: 1, pace: FAST });
    assert.doesNotMatch(renderSummary(report, { definitions: false }), /^(note|warning):/m, 'nothing to say of an ordinary run');
    const [benchmark] = report.benchmarks;
    const metrics = { ...benchmark!.summary.metrics, avg_rtt_ms: { ...benchmark!.summary.metrics.avg_rtt_ms!, p50: -55 } };
    const negative: Report = { ...report, benchmarks: [{ ...benchmark!, summary: { ...benchmark!.summary, metrics } }] };
    assert.match(
      renderSummary(negative, { definitions: false }),
      /^note: negative median avg_rtt_ms -55\.0 ms: avg_rtt_ms is mean receive time minus mean send time .*trailing silence, server VAD.*; word_emission_ms is the true round trip$/m,
    );
  });
});
