import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { run } from '../src/run/run.js';

/** 20 ms, plus the audio at 100 times real time (about 50 ms a sample), and a knee past one request in flight. */
const server = { latency: { ...DEFAULT_LATENCY, baseDelayMs: 20, jitterMs: 0, batchSpeed: 100, capacity: 1 } };
const base = { protocol: 'vllm-transcriptions', server } as const;

describe('load profiles with batch transcription', () => {
  it('runs a sweep of concurrency levels, judging an SLO on processing_ms at each', async () => {
    const { report } = await run({ ...base, sweep: [1, 3], maxSessions: 6, slos: ['p95(processing_ms)<2000'] });
    assert.deepEqual(
      report.benchmarks.map((b) => b.label),
      ['concurrent@1', 'concurrent@3'],
    );
    for (const b of report.benchmarks) {
      assert.equal(b.summary.sessions.completed, 6);
      assert.deepEqual(
        b.summary.slos.map((s) => [s.slo, s.pass]),
        [['p95(processing_ms)<2000', true]],
      );
    }
    const [one, three] = report.benchmarks.map((b) => b.summary.metrics.processing_ms!.p50);
    assert.ok(three! > one!, `requests in flight past the knee take longer (${one} ms at 1, ${three} ms at 3)`);
  });

  it('searches the capacity at which p95(processing_ms) holds, finding the knee', async () => {
    // 100 ms more a request: about 150 ms at one in flight, 300 at two, 600 at four, so the SLO
    // sits two levels above the first, and a loaded machine's own delay cannot fail the first.
    const slower = { latency: { ...server.latency, baseDelayMs: 100 } };
    const { report } = await run({
      ...base,
      server: slower,
      capacity: { by: 'concurrency', start: 1, max: 8 },
      maxSessions: 8,
      slos: ['p95(processing_ms)<600'],
    });
    const capacity = report.capacity!;
    assert.ok(capacity.answer !== null && capacity.answer >= 1, JSON.stringify(capacity.probes));
    assert.ok(capacity.failsAt !== null && capacity.failsAt <= 8, JSON.stringify(capacity.probes));
  });

  it('runs open-loop arrivals for a duration with a cap on requests in flight, counting the cap hits', async () => {
    const { report } = await run({ ...base, profile: { kind: 'constant', rate: 25, maxOpen: 1 }, duration: 1 });
    const [b] = report.benchmarks;
    assert.equal(b!.summary.sessions.failed, 0);
    assert.ok(b!.summary.sessions.completed >= 10, String(b!.summary.sessions.completed));
    assert.ok(b!.clientHealth.capHits > 0, 'arrivals waited for the one request in flight');
    assert.ok(b!.summary.metrics.start_lag_ms!.max > 0, 'and their lateness is recorded');
  });

  it('spreads requests over worker threads, each with its own connection pool', async () => {
    const { report } = await run({ ...base, profile: { kind: 'concurrent', concurrency: 4 }, maxSessions: 8, workers: 2, turnsPerSession: 2 });
    const { summary } = report.benchmarks[0]!;
    assert.deepEqual(summary.sessions, { total: 8, completed: 8, failed: 0, incomplete: 0 });
    assert.equal(summary.turns.finalized, 16, 'two requests per session, one after the other');
    assert.equal(summary.quality.wer, 0);
  });
});
