import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { Clock } from '../src/runtime/clock.js';
import { searchCapacity } from '../src/load/capacity.js';
import { execute, type ExecuteOptions } from '../src/run/execute.js';
import { arrivalSchedule, laneStarts, type LoadProfile } from '../src/load/profiles.js';
import { shareOf } from '../src/load/shards.js';
import { connectPhase } from '../src/run/connect-phase.js';
import { parseSlo, SloError, valuesNeeded } from '../src/metrics/slo.js';
import { valuesTrustedFor } from '../src/metrics/stats.js';
import { phases } from '../src/metrics/window.js';
import type { SessionRecord } from '../src/timeline/types.js';
import { spanTimeline } from './helpers.js';

describe('schedules', () => {
  it('constant arrivals are evenly spaced', () => {
    assert.deepEqual(arrivalSchedule({ kind: 'constant', rate: 2 }, 5, 0), [0, 500, 1000, 1500, 2000]);
  });

  it('a ramp-up follows the inverse of the integrated rate, then the full rate', () => {
    // rate 2/s reached linearly over 2 s: 2 arrivals during the ramp, then one every 500 ms.
    const schedule = arrivalSchedule({ kind: 'constant', rate: 2 }, 5, 2000);
    assert.deepEqual(
      schedule.map((t) => Number(t.toFixed(6))),
      [0, Number(Math.sqrt(2_000_000).toFixed(6)), 2000, 2500, 3000],
    );
  });

  it('Poisson arrivals are reproducible from the seed and average the rate', () => {
    const profile = { kind: 'poisson', rate: 4, seed: 7 } as const;
    const a = arrivalSchedule(profile, 10_000, 0);
    assert.deepEqual(a, arrivalSchedule(profile, 10_000, 0));
    assert.notDeepEqual(a.slice(0, 5), arrivalSchedule({ ...profile, seed: 8 }, 5, 0));
    assert.ok(
      a.every((t, i) => i === 0 || t > a[i - 1]!),
      'increasing',
    );
    const meanGap = a.at(-1)! / a.length;
    assert.ok(Math.abs(meanGap - 250) / 250 < 0.03, `mean gap ${meanGap} ms for 4 arrivals/s`);
  });

  it('closed-loop lanes start together or spread over the ramp', () => {
    assert.deepEqual(laneStarts(4, 0), [0, 0, 0, 0]);
    assert.deepEqual(laneStarts(4, 1000), [0, 250, 500, 750]);
  });
});

describe('worker shares', () => {
  for (const profile of [{ kind: 'concurrent', concurrency: 5 }, { kind: 'synchronous' }, { kind: 'poisson', rate: 3, seed: 1, maxOpen: 5 }] as LoadProfile[]) {
    it(`split ${profile.kind} exactly over 3 workers`, () => {
      const shares = [0, 1, 2].map((w) => shareOf(profile, w, 3));
      for (let i = 0; i < 100; i++) assert.equal(shares.filter((s) => s.owns(i)).length, 1, `session ${i} has one owner`);
      if (profile.kind === 'concurrent') {
        assert.deepEqual(
          shares.map((s) => (s.profile as { concurrency: number }).concurrency),
          [2, 2, 1],
        );
      }
      if (profile.kind === 'synchronous')
        assert.deepEqual(
          shares.map((s) => s.profile !== null),
          [true, false, false],
        );
      if (profile.kind === 'poisson')
        assert.deepEqual(
          shares.map((s) => (s.profile as { maxOpen: number }).maxOpen),
          [2, 2, 2],
        );
    });
  }
});

describe('capacity search', () => {
  it('doubles, then bisects to adjacent levels', async () => {
    const { answer, failsAt, probes } = await searchCapacity({ start: 1, max: 256, integer: true, tolerance: 0.1 }, (level) => Promise.resolve(level <= 13));
    assert.equal(answer, 13);
    assert.equal(failsAt, 14);
    assert.deepEqual(
      probes.map((p) => p.level),
      [1, 2, 4, 8, 16, 12, 14, 13],
    );
  });

  it('bisects rates to the tolerance', async () => {
    const { answer, failsAt } = await searchCapacity({ start: 1, max: 1000, integer: false, tolerance: 0.05 }, (rate) => Promise.resolve(rate <= 5.3));
    assert.ok(answer! <= 5.3 && failsAt! > 5.3 && (failsAt! - answer!) / answer! <= 0.05, `${answer} .. ${failsAt}`);
  });

  it('reports no answer when the first level fails, and no failure when the limit passes', async () => {
    assert.deepEqual(await searchCapacity({ start: 1, max: 8, integer: true, tolerance: 0.1 }, () => Promise.resolve(false)), {
      answer: null,
      failsAt: 1,
      probes: [{ level: 1, pass: false }],
    });
    const all = await searchCapacity({ start: 1, max: 6, integer: true, tolerance: 0.1 }, () => Promise.resolve(true));
    assert.deepEqual([all.answer, all.failsAt, all.probes.map((p) => p.level)], [6, null, [1, 2, 4, 6]]);
  });

  it('calls no capacity from a level where the client could not keep up: it stops there, and names it', async () => {
    const search = { start: 1, max: 64, integer: true, tolerance: 0.1 };
    // The server holds to 13, but at 8 the client was the bottleneck: 8 must not read as the server's failure.
    const up = await searchCapacity(search, (level) => Promise.resolve(level >= 8 ? 'client' : level <= 13 ? 'pass' : 'fail'));
    assert.deepEqual(up, {
      answer: 4,
      failsAt: null,
      clientBoundAt: 8,
      probes: [
        { level: 1, pass: true },
        { level: 2, pass: true },
        { level: 4, pass: true },
        { level: 8, pass: false, clientBound: true },
      ],
    });
    // While bisecting: the bracket found so far stands, and the client-bound level is named.
    const down = await searchCapacity(search, (level) => Promise.resolve(level === 12 ? 'client' : level <= 10 ? 'pass' : 'fail'));
    assert.deepEqual([down.answer, down.failsAt, down.clientBoundAt], [8, 16, 12]);
  });
});

describe('sessions a capacity search needs per level', () => {
  it('rests each percentile an SLO names on the values the thin-tail rule trusts', () => {
    assert.equal(valuesTrustedFor(95), 20);
    assert.equal(valuesTrustedFor(99), 100);
    assert.equal(valuesTrustedFor(99.9), 1000);
    assert.equal(valuesTrustedFor(100), 1);
    assert.equal(valuesNeeded([parseSlo('p95(voice_to_voice_ms)<1500')]), 20);
    assert.equal(valuesNeeded([parseSlo('p50(ttft_ms)<100'), parseSlo('p99(ttft_ms)<900'), parseSlo('error_rate<0.01')]), 100);
    assert.equal(valuesNeeded([parseSlo('mean(rtfx)>1')]), 1);
  });
});

describe('SLO grammar', () => {
  for (const [text, aggregate, op, threshold] of [
    ['p95(finalization_ms)<800', { stat: 'percentile', p: 95, metric: 'finalization_ms' }, '<', 800],
    ['p99.9(ttft_ms) <= 1200', { stat: 'percentile', p: 99.9, metric: 'ttft_ms' }, '<=', 1200],
    ['mean(rtfx)>1', { stat: 'mean', metric: 'rtfx' }, '>', 1],
    ['error_rate<0.01', { stat: 'error_rate' }, '<', 0.01],
  ] as const) {
    it(`parses ${text}`, () => {
      assert.deepEqual(parseSlo(text), { text, aggregate, op, threshold });
    });
  }

  for (const [text, message] of [
    ['p95(ttft)<800', '"p95(ttft)<800": unknown metric "ttft"; known metrics: '],
    ['p95 ttft_ms < 800', '"p95 ttft_ms < 800" is not an SLO; write stat(metric) op number or error_rate op number, e.g. p95(ttft_ms)<800 or error_rate<0.01'],
    ['p0(ttft_ms)<1', '"p0(ttft_ms)<1": percentile p0 must be above p0 and at most p100'],
    ['p95(ttft_ms)=800', '"p95(ttft_ms)=800" is not an SLO'],
  ] as const) {
    it(`rejects ${text} clearly`, () => {
      assert.throws(
        () => parseSlo(text),
        (err: Error) => err instanceof SloError && err.message.startsWith(message),
      );
    });
  }
});

describe('warm-up and cool-down', () => {
  const records: SessionRecord[] = [
    [0, 1000],
    [100, 1500],
    [200, 900],
    [1000, 2000],
    [1200, 2100],
  ].map(([start, end], index) => ({
    index,
    sampleIds: ['s'],
    split: 'default',
    timeline: spanTimeline(start!, end!),
    outcome: { status: 'completed' },
  }));

  it('by count: the first to start and the last to end', () => {
    assert.deepEqual(phases(records, 0, 2100, { warmup: { sessions: 2 }, cooldown: { sessions: 1 } }), [
      'warmup',
      'warmup',
      'measured',
      'measured',
      'cooldown',
    ]);
  });

  it('by time: planned to start early, or ending late', () => {
    assert.deepEqual(phases(records, 0, 2100, { warmup: { ms: 150 }, cooldown: { ms: 500 } }), ['warmup', 'warmup', 'measured', 'cooldown', 'cooldown']);
  });
});

describe('execute on a fake clock', () => {
  /** Runs `execute` with mocked timers, advancing time 1 ms at a time; sessions last `durationMs`. */
  /** Lets everything due at the fake clock's now run: timers, and session starts, which run a macrotask later. */
  async function letDueWorkRun(): Promise<void> {
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  }

  async function simulate(
    profile: LoadProfile,
    maxSessions: number,
    durationMs: number,
    lanes: Pick<ExecuteOptions, 'phaseSpreadMs' | 'lanes' | 'shard'> = {},
  ) {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const clock: Clock = { now: () => Date.now(), wallStart: new Date(0), origin: 0 };
      const starts: Array<[number, number]> = [];
      const running = execute({
        profile,
        maxSessions,
        clock,
        ...lanes,
        runSession: (index, plannedStartMs) => {
          starts.push([plannedStartMs, clock.now()]);
          return new Promise((resolve) =>
            setTimeout(
              () =>
                resolve({ index, sampleIds: ['s'], split: 'default', timeline: spanTimeline(plannedStartMs, clock.now()), outcome: { status: 'completed' } }),
              durationMs,
            ),
          );
        },
      });
      let finished = false;
      void running.then(() => (finished = true));
      for (let t = 0; t < 20_000 && !finished; t++) {
        await letDueWorkRun();
        mock.timers.tick(1);
      }
      return { execution: await running, starts };
    } finally {
      mock.timers.reset();
    }
  }

  it('open loop starts every session exactly at its planned time', async () => {
    const { starts, execution } = await simulate({ kind: 'constant', rate: 2 }, 4, 800);
    assert.deepEqual(starts, [
      [0, 0],
      [500, 500],
      [1000, 1000],
      [1500, 1500],
    ]);
    assert.equal(execution.capHits, 0);
  });

  it('a cap on open sessions delays starts, counts the hits, and keeps the planned times', async () => {
    const { starts, execution } = await simulate({ kind: 'constant', rate: 2, maxOpen: 1 }, 4, 800);
    assert.deepEqual(starts, [
      [0, 0],
      [500, 800],
      [1000, 1600],
      [1500, 2400],
    ]);
    assert.equal(execution.capHits, 3);
  });

  it("closed loop starts each lane's next session when its previous one ends", async () => {
    const { starts } = await simulate({ kind: 'concurrent', concurrency: 2 }, 4, 800);
    assert.deepEqual(starts, [
      [0, 0],
      [0, 0],
      [800, 800],
      [800, 800],
    ]);
  });

  it("closed-loop lanes start one phase spread apart, and each session records its lane's phase", async () => {
    const { starts, execution } = await simulate({ kind: 'concurrent', concurrency: 4 }, 8, 800, { phaseSpreadMs: 100 });
    assert.deepEqual(starts.slice(0, 4), [
      [0, 0],
      [25, 25],
      [50, 50],
      [75, 75],
    ]);
    assert.deepEqual(
      execution.records.map((r) => r.laneOffsetMs),
      [0, 25, 50, 75, 0, 25, 50, 75],
    );
  });

  it("a connect phase holds every lane's first session until all are ready, then streams each at its phase", async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const clock: Clock = { now: () => Date.now(), wallStart: new Date(0), origin: 0 };
      const events: Array<[number, string]> = [];
      const running = execute({
        profile: { kind: 'concurrent', concurrency: 3 },
        maxSessions: 5,
        clock,
        phaseSpreadMs: 90,
        connectFirst: true,
        // Session 1 never gets ready: it fails at 40 ms, which must release the others too.
        runSession: async (index, plannedStartMs, _signal, gate) => {
          events.push([clock.now(), `start ${index} planned ${plannedStartMs}`]);
          await new Promise((resolve) => setTimeout(resolve, 10 + 30 * index));
          gate?.ready();
          if (index !== 1 && gate) events.push([await gate.startAt, `stream ${index}`]);
          return {
            index,
            sampleIds: ['s'],
            split: 'default',
            timeline: spanTimeline(plannedStartMs, clock.now()),
            outcome: index === 1 ? { status: 'failed', failure: { class: 'connect_error', stage: 'connect', message: 'no' } } : { status: 'completed' },
          };
        },
      });
      let finished = false;
      void running.then(() => (finished = true));
      for (let t = 0; t < 1000 && !finished; t++) {
        await letDueWorkRun();
        mock.timers.tick(1);
      }
      await running;
      // All three lanes connect at 0; the last is ready at 70 ms; lanes stream at 70 + 0, 30, 60.
      // Sessions 3 and 4 take the free lanes (session 1's at 40 ms, session 0's at 70 ms) with no gate.
      assert.deepEqual(
        events.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1])),
        [
          [0, 'start 0 planned 0'],
          [0, 'start 1 planned 0'],
          [0, 'start 2 planned 0'],
          [40, 'start 3 planned 40'],
          [70, 'start 4 planned 70'],
          [70, 'stream 0'],
          [130, 'stream 2'],
        ],
      );
    } finally {
      mock.timers.reset();
    }
  });

  it('a connect phase opens when every lane has said it is ready, once each', async () => {
    let opens = 0;
    const phase = connectPhase(2, () => {
      opens++;
      return Promise.resolve(1000);
    });
    const [a, b] = [phase.gate(0), phase.gate(50)];
    a.ready();
    a.ready(); // a second word from the same lane does not count
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(opens, 0);
    b.ready();
    assert.deepEqual(await Promise.all([a.startAt, b.startAt]), [1000, 1050]);
    assert.equal(opens, 1);
  });

  it("a worker's lanes keep their phases in the whole level, so workers interleave", async () => {
    const share = shareOf({ kind: 'concurrent', concurrency: 4 }, 1, 2);
    const { execution } = await simulate(share.profile!, 8, 800, { phaseSpreadMs: 100, lanes: share.lanes!, shard: (index) => share.owns(index) });
    assert.deepEqual(
      execution.records.map((r) => [r.index, r.laneOffsetMs]),
      [
        [1, 25],
        [3, 75],
        [5, 25],
        [7, 75],
      ],
    );
  });
});
