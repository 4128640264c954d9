import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { arrivalTime, laneWindows, parseStages, targetAt } from '../src/load/stages.js';
import { arrivalSchedule, profileLabel } from '../src/load/profiles.js';
import { shareOf } from '../src/load/shards.js';
import { levelOverTime } from '../src/report/time-series.js';
import { renderHtml } from '../src/report/html/index.js';
import { readHeldReport } from '../src/report/recompute.js';
import type { HeldReport } from '../src/report/schema.js';
import { launchChromium, NO_CHROMIUM, openOffline } from './browser.js';
import { CLI, runNode } from './helpers.js';

const STAGES = parseStages('30s:8,60s:32,30s:0');

describe('stages', () => {
  it('parses DURATION:TARGET lists and refuses what is not one', () => {
    assert.deepEqual(STAGES, [
      { durationMs: 30_000, target: 8 },
      { durationMs: 60_000, target: 32 },
      { durationMs: 30_000, target: 0 },
    ]);
    assert.deepEqual(parseStages('500ms:2, 1m:4,0s:1'), [
      { durationMs: 500, target: 2 },
      { durationMs: 60_000, target: 4 },
      { durationMs: 0, target: 1 },
    ]);
    assert.throws(() => parseStages('30s'), /"30s" is not DURATION:TARGET/);
    assert.throws(() => parseStages('30s:-1'), /not DURATION:TARGET/);
    assert.throws(() => parseStages('0s:4'), /last no time/);
    assert.equal(profileLabel({ kind: 'stages', stages: STAGES }), 'stages 30s:8,60s:32,30s:0');
  });

  it('ramps the target linearly from 0 through each stage', () => {
    assert.deepEqual(
      [0, 15_000, 30_000, 60_000, 90_000, 105_000, 120_000, 200_000].map((t) => targetAt(STAGES, t)),
      [0, 4, 8, 20, 32, 16, 0, 0],
    );
    // A stage of no time jumps.
    assert.equal(targetAt(parseStages('1s:2,0s:6,1s:6'), 1000), 6);
  });

  it("opens lane k while the target is at least k + 1, as k6's ramping-vus adds and removes VUs", () => {
    assert.deepEqual(laneWindows(STAGES, 0), [{ fromMs: 30_000 / 8, toMs: 120_000 - 30_000 / 32 }]);
    assert.deepEqual(laneWindows(STAGES, 7), [{ fromMs: 30_000, toMs: 120_000 - (30_000 * 8) / 32 }]);
    assert.deepEqual(laneWindows(STAGES, 31), [{ fromMs: 90_000, toMs: 90_000 }], 'the peak lane comes on for its one session');
    assert.deepEqual(laneWindows(STAGES, 32), []);
    // Up, down and up again: two windows; a flat stage joins the windows either side.
    assert.deepEqual(laneWindows(parseStages('1s:2,1s:0,1s:2,1s:2'), 0), [
      { fromMs: 500, toMs: 1500 },
      { fromMs: 2500, toMs: 4000 },
    ]);
  });

  it('shares staged lanes over workers by global lane, keeping the stages', () => {
    const profile = { kind: 'stages', stages: STAGES } as const;
    const share = shareOf(profile, 1, 3);
    assert.deepEqual(share.profile, profile);
    assert.deepEqual(share.lanes, { mine: [1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31], of: 32 });
  });

  it("places arrivals where the integrated rate reaches each count, as k6's ramping-arrival-rate", () => {
    // 0 → 2/s over 2 s (2 arrivals), 2/s for 2 s (4 more), 2 → 0/s over 2 s (2 more).
    const stages = parseStages('2s:2,2s:2,2s:0');
    assert.equal(arrivalTime(stages, 0), 0);
    assert.equal(arrivalTime(stages, 2), 2000);
    assert.equal(arrivalTime(stages, 4), 3000);
    assert.ok(Math.abs(arrivalTime(stages, 7) - (6000 - Math.sqrt(2) * 1000)) < 1e-9);
    assert.equal(arrivalTime(stages, 8), 6000);
    assert.equal(arrivalTime(stages, 8.5), Infinity);
    const schedule = arrivalSchedule({ kind: 'rate-stages', stages }, Infinity, 0);
    assert.equal(schedule.length, 8, 'the arrival due as the stages end is not planned');
    assert.ok(
      schedule.every((t, i) => i === 0 || t > schedule[i - 1]!),
      'increasing',
    );
    // With a seed, Poisson arrivals of the same intensity, reproducibly.
    const poisson = arrivalSchedule({ kind: 'rate-stages', stages: parseStages('10s:20,100s:20'), seed: 3 }, 10_000, 0);
    assert.deepEqual(poisson, arrivalSchedule({ kind: 'rate-stages', stages: parseStages('10s:20,100s:20'), seed: 3 }, 10_000, 0));
    assert.ok(Math.abs(poisson.length - 2100) < 150, `${poisson.length} arrivals where 2100 are expected`);
    assert.ok(poisson.every((t) => t < 110_000));
  });

  it('refuses stages that cannot run, naming the flag', async () => {
    const refusals: Array<[string[], RegExp]> = [
      [['--stages', '1s:1.5'], /--stages: each target must be a whole number of sessions/],
      [['--stages', '1s:0'], /--stages never rise above 0/],
      [['--stages', '1s:2', '--concurrency', '4'], /--concurrency does not apply with/],
      [['--stages', '1s:2', '--rate-stages', '1s:2'], /--stages and --rate-stages ramp different things/],
      [['--stages', '1s:2', '--ramp-up-s', '2'], /--stages and --ramp-up-s do not combine/],
      [['--stages', 'soon'], /"soon" is not DURATION:TARGET/],
      [['--profile', 'rate-stages'], /--profile rate-stages needs --rate-stages/],
    ];
    await Promise.all(
      refusals.map(async ([flags, message]) => {
        const { code, stderr } = await runNode([CLI, 'run', ...flags, '--output-dir', join(tmpdir(), 'voxbench-never-written')]);
        assert.equal(code, 2, `${flags.join(' ')}: ${stderr}`);
        assert.match(stderr, message);
        assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
      }),
    );
  });
});

describe('a run with --rate-stages against the built-in server', () => {
  it('starts sessions at the planned arrivals of the ramped rate', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voxbench-rate-stages-'));
    try {
      const { code, stderr } = await runNode([CLI, 'run', '--rate-stages', '1s:4,1s:0', '--pace', '8x', '--output-dir', dir, '--outputs', 'json']);
      assert.equal(code, 0, stderr);
      const report = await readHeldReport(dir);
      const [level] = report.benchmarks;
      // 0 → 4/s over 1 s and back: 4 arrivals, at Λ⁻¹(0..3); the 5th would fall due as the stages end.
      assert.deepEqual(
        level!.sessions.map((s) => Math.round(s.timeline.plannedStartMs - level!.startMs)),
        [0, 707, 1000, 1293],
      );
      assert.equal(level!.label, 'rate-stages 1s:4,1s:0');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a staged run against the built-in server', () => {
  let dir: string;
  let report: HeldReport;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'voxbench-stages-'));
    const { code, stderr } = await runNode([CLI, 'run', '--stages', '1s:4,1s:4,1s:0', '--pace', '8x', '--output-dir', dir, '--outputs', 'json']);
    assert.equal(code, 0, stderr);
    report = await readHeldReport(dir);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('opens sessions as the stages ramp: the open-session curve follows the target', () => {
    const [level] = report.benchmarks;
    assert.equal(level!.label, 'stages 1s:4,1s:4,1s:0');
    assert.ok(level!.sessions.every((s) => s.outcome.status === 'completed'));
    const over = levelOverTime(level!, 'ttft_ms');
    // The mean target of each second: ramping up (2), at the plateau (4), ramping down (2), then the last sessions finishing.
    const expected = [2, 4, 2];
    expected.forEach((target, second) =>
      assert.ok(Math.abs(over.open[second]! - target) < 1.2, `second ${second}: ${over.open[second]} open, target ${target}`),
    );
    assert.ok(over.open[0]! < over.open[1]! && over.open[2]! < over.open[1]!, `up, then down: ${over.open.join(', ')}`);
    assert.ok(Math.max(...over.open) <= 4, 'never more than the peak');
    assert.ok(
      over.open.slice(3).every((n) => n < 1),
      `the stages end: ${over.open.join(', ')}`,
    );
    assert.ok(
      over.latency!.p50.slice(0, 3).every((v) => v !== null && v > 0),
      'a headline latency every second',
    );
    assert.deepEqual(over.failures.slice(0, 3), [0, 0, 0]);
  });

  describe('its time panel in headless Chromium', { skip: NO_CHROMIUM }, () => {
    let browser: Browser;
    before(async () => {
      browser = await launchChromium();
    });
    after(() => browser?.close());

    it('draws latency, open sessions and every scraped series on the level’s time axis', async () => {
      const [level] = report.benchmarks;
      const at = (s: number): number => level!.startMs + s * 1000;
      // A fixture as the scraper writes it: a gauge, with server text that must stay text, and a rate.
      const withTelemetry: HeldReport = {
        ...report,
        telemetry: {
          intervalMs: 500,
          targets: [{ url: 'http://127.0.0.1:8000/metrics', scrapes: 7, failures: 1, lastError: 'timed out' }],
          series: [
            {
              target: 0,
              name: 'vllm:num_requests_running',
              labels: { model_name: '<img src=x onerror="window.__xss=1">' },
              kind: 'gauge',
              points: [0, 0.5, 1, 1.5, 2, 2.5].map((s) => [at(s), targetAt(parseStages('1s:4,1s:4,1s:0'), s * 1000)]),
            },
            {
              target: 0,
              name: 'vllm:prompt_tokens_total',
              labels: {},
              kind: 'rate',
              points: [
                [at(1), 40],
                [at(2), 42],
                [at(9999), 1],
              ],
            },
            { target: 0, name: 'vllm:absent_then', labels: {}, kind: 'gauge', points: [[at(-100), 1]] },
          ],
        },
      };
      const file = join(dir, 'time.html');
      await writeFile(file, renderHtml(withTelemetry));
      const { page, context, charts, problems, requests, url } = await openOffline(browser, file);
      try {
        assert.deepEqual(problems, []);
        assert.deepEqual([...new Set(requests)], [url]);
        const time = charts.filter((c) => c.id?.startsWith('time-0-'));
        assert.deepEqual(
          time.map((c) => c.id),
          ['time-0-latency', 'time-0-sessions', 'time-0-by-open', 'time-0-telemetry-0', 'time-0-telemetry-1'],
          'a series with no point in the level is not drawn',
        );
        for (const c of time) assert.ok(c.canvases === 1 && c.points > 0 && c.series > 0, `${c.id} drawn: ${JSON.stringify(c)}`);
        assert.equal(time.find((c) => c.id === 'time-0-telemetry-0')!.points, 6);
        assert.equal(time.find((c) => c.id === 'time-0-telemetry-1')!.points, 2, 'points past the level are left out');
        const text = await page.locator('#time').innerText();
        assert.match(text, /vllm:num_requests_running over time/);
        assert.match(text, /stages 1s:4,1s:4,1s:0/);
      } finally {
        await context.close();
      }
    });
  });
});
