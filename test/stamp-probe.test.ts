import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import { worstDelay } from '../src/runtime/delay.js';
import { startStampProbe } from '../src/runtime/stamp-probe.js';
import { run } from '../src/run/run.js';
import { sharedTarget } from './helpers.js';

const shared = await sharedTarget();

describe('receive-stamp probe', () => {
  it('sees a blocked event loop: messages that arrived meanwhile wait until it is free', async () => {
    const probe = await startStampProbe();
    while (probe.received < 2) await setTimeout(10); // the sender is running
    const blockedUntil = performance.now() + 200;
    while (performance.now() < blockedUntil);
    await setTimeout(50);
    const delay = await probe.stop();
    // A message written at the start of the block waited for all of it, less a probe interval.
    assert.ok(delay.maxMs >= 180, `max ${delay.maxMs} ms`);
    assert.ok(delay.p50Ms <= delay.p99Ms && delay.p99Ms <= delay.maxMs);
  });

  it('takes what arrived since it was last taken', async () => {
    const probe = await startStampProbe();
    try {
      while (probe.received < 2) await setTimeout(10);
      const blockedUntil = performance.now() + 100;
      while (performance.now() < blockedUntil);
      await setTimeout(30);
      assert.ok(probe.take().maxMs >= 80, 'the block is in the first take');
      const received = probe.received;
      while (probe.received < received + 2) await setTimeout(10);
      assert.ok(probe.take().maxMs < 80, 'and not in the next');
    } finally {
      await probe.stop();
    }
  });

  for (const workers of [1, 2]) {
    it(`gives each level of a run its own receive delay, the probe started before the first (${workers} thread${workers > 1 ? 's' : ''})`, async () => {
      const { report } = await run({ ...shared, sweep: [1, 2], maxSessions: 2, workers, pace: { kind: 'realtime', speed: 8 } });
      for (const b of report.benchmarks) {
        const delay = b.clientHealth.receiveDelay!;
        assert.ok(delay.maxMs > 0 && delay.p50Ms <= delay.maxMs, `${b.label}: ${JSON.stringify(delay)}`);
      }
    });
  }

  it('takes the worst of each figure over threads', () => {
    const a = { meanMs: 1, p50Ms: 0.5, p99Ms: 4, maxMs: 9 };
    const b = { meanMs: 2, p50Ms: 0.4, p99Ms: 3, maxMs: 12 };
    assert.deepEqual(worstDelay([a, b]), { meanMs: 2, p50Ms: 0.5, p99Ms: 4, maxMs: 12 });
  });
});
