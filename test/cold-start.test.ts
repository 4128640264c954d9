import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lastEndMs, starts } from '../src/metrics/cold-start.js';
import { renderSummary } from '../src/report/console.js';
import { jsonSummary } from '../src/report/json-summary.js';
import { readHeldReport, recompute } from '../src/report/recompute.js';
import type { HeldReport } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { startServer } from '../src/simulator/start.js';
import { sessionEndMs, type SessionRecord } from '../src/timeline/types.js';
import { CLI, runNode, spanTimeline, tempDir } from './helpers.js';

/** A completed session open from `start` to `end`, ms on the run clock. */
function session(index: number, start: number, end: number): SessionRecord {
  const timeline = spanTimeline(start, end);
  return { index, sampleIds: ['s'], split: 'default', timeline, outcome: { status: 'completed' } };
}

/** The same session, failed: refused, or given up on while the target was still loading. */
function failed(index: number, start: number, end: number): SessionRecord {
  return {
    ...session(index, start, end),
    outcome: { status: 'failed', failure: { class: 'upgrade_status', stage: 'connect', message: '503', httpStatus: 503 } },
  };
}

describe('cold starts', () => {
  it('are the first session and the first after an idle gap longer than the threshold, in start order', () => {
    const records = [
      session(0, 0, 1000),
      session(1, 500, 3000), // open while session 0 was
      session(2, 3500, 4000), // 500 ms idle: not more than the gap
      session(3, 5001, 6000), // 1001 ms idle
      session(4, 5100, 5200), // open while session 3 was
      session(5, 7500, 8000), // 1500 ms after session 3 ended, though session 4 ended earlier still
    ];
    assert.deepEqual(starts(records, 1000), ['cold', 'warm', 'warm', 'cold', 'warm', 'cold']);
    // Sessions stored out of start order are labelled by when they started, not where they sit.
    assert.deepEqual(starts([records[1]!, records[0]!], 1000), ['warm', 'cold']);
    // A later level: the earlier levels' activity carries over, so its first session is warm unless the target idled first.
    assert.deepEqual(starts([session(0, 200, 300)], 1000, 0), ['warm']);
    assert.deepEqual(starts([session(0, 1200, 1300)], 1000, 0), ['cold']);
    assert.deepEqual(starts([], 1000), []);
  });

  it('are the first answered session: failed sessions, and those open while the first waited, do not make the target warm', () => {
    // A first attempt refused in 20 ms, then an 8 s cold start, then a warm session.
    assert.deepEqual(starts([failed(0, 0, 20), session(1, 20, 8020), session(2, 8020, 8500)], 1000), ['warm', 'cold', 'warm']);
    // The first session timed out while the target loaded; the one that started beside it, and waited for the same load, was answered.
    assert.deepEqual(starts([failed(0, 0, 5000), session(1, 100, 8000), session(2, 200, 8100)], 1000), ['warm', 'cold', 'warm']);
    // Failed sessions between answered ones keep no target warm: an idle gap under them still makes the next answered one cold.
    assert.deepEqual(starts([session(0, 0, 100), failed(1, 500, 3000), session(2, 2500, 2600)], 1000), ['cold', 'warm', 'cold']);
    // Nothing answered: nothing is cold.
    assert.deepEqual(starts([failed(0, 0, 20), failed(1, 20, 40)], 1000), ['warm', 'warm']);
    // A level whose earlier levels answered nothing starts with its first answered session cold.
    assert.deepEqual(lastEndMs([failed(0, 0, 20)]), undefined);
    assert.deepEqual(lastEndMs([session(0, 0, 100), failed(1, 0, 900)]), 100);
  });

  it('are labelled in a run with idle gaps, reported apart in every output, and relabelled by report render with another gap', async () => {
    const dir = await tempDir();
    // Arrivals 1 s apart, each session unpaced (a few hundred ms at most): an idle gap before each one.
    const { report } = await run({
      profile: { kind: 'constant', rate: 1 },
      maxSessions: 3,
      pace: { kind: 'none' },
      window: { coldGapMs: 100 },
      outputDir: dir,
      outputs: ['json', 'csv', 'md', 'html'],
    });
    const [level] = report.benchmarks;
    const sessions = [...level!.sessions].sort((a, b) => a.timeline.startMs - b.timeline.startMs);
    for (const [i, s] of sessions.entries()) {
      const idleMs = i === 0 ? Infinity : s.timeline.startMs - Math.max(...sessions.slice(0, i).map((e) => sessionEndMs(e.timeline)));
      assert.equal(s.start, idleMs > 100 ? 'cold' : 'warm', `session ${s.index} after ${idleMs} ms idle`);
    }
    const cold = sessions.filter((s) => s.start === 'cold').length;
    assert.ok(cold >= 2, `the first and at least one after a gap started cold, got ${cold}`);
    const { coldWarm } = level!.summary;
    assert.deepEqual({ gapMs: coldWarm!.gapMs, cold: coldWarm!.cold.sessions, warm: coldWarm!.warm.sessions }, { gapMs: 100, cold, warm: 3 - cold });
    assert.equal(coldWarm!.cold.metrics.ttft_ms!.count, cold);
    // The level's own figures still count every measured session.
    assert.equal(level!.summary.metrics.ttft_ms!.count, 3);

    assert.match(
      renderSummary(report),
      new RegExp(
        `^starts: ${cold} cold · ${3 - cold} warm \\(cold: the first completed session, and the first after more than 0\\.1 s with no completed session open\\)$`,
        'm',
      ),
    );
    const summary = jsonSummary(report);
    assert.equal(summary.levels[0]!.coldWarm!.cold.sessions, cold);
    assert.equal(summary.levels[0]!.coldWarm!.cold.metrics.ttft_ms!.count, cold);
    assert.equal(summary.levels[0]!.coldWarm!.warm.metrics.ttft_ms?.count, 3 - cold === 0 ? undefined : 3 - cold);
    const sessionsCsv = (await readFile(join(dir, 'sessions.csv'), 'utf8')).split('\r\n');
    assert.match(sessionsCsv[0]!, /^level,session,phase,start,outcome,/);
    assert.match(sessionsCsv[1]!, /^constant@1\/s,0,measured,cold,completed,/);
    const startsCsv = (await readFile(join(dir, 'starts.csv'), 'utf8')).trim().split('\r\n');
    assert.match(startsCsv[0]!, /^level,start,cold_gap \[s\],sessions,completed,failed,.*ttft_ms p95 \[ms\]/);
    assert.match(startsCsv[1]!, new RegExp(`^constant@1/s,cold,0\\.1,${cold},${cold},0,`));
    assert.match(startsCsv[2]!, new RegExp(`^constant@1/s,warm,0\\.1,${3 - cold},${3 - cold},0,`));
    assert.match(await readFile(join(dir, 'summary.md'), 'utf8'), new RegExp(`^\\| constant@1/s \\| cold \\| ${cold} \\| ${cold} \\| 0 \\| \\d`, 'm'));
    const page = await readFile(join(dir, 'report.html'), 'utf8');
    assert.match(page, /<section[^>]*id="cold-warm"/);
    assert.match(page, /Cold and warm starts/);
    const stored = await readHeldReport(dir);
    assert.deepEqual(
      stored.benchmarks[0]!.sessions.map((s) => s.start),
      level!.sessions.map((s) => s.start),
    );

    // With a gap longer than any in the run, only the first session is cold.
    const regapped = recompute({ ...stored, config: { ...stored.config, window: { coldGapMs: 30_000 } } });
    const relabelled = [...regapped.benchmarks[0]!.sessions].sort((a, b) => a.timeline.startMs - b.timeline.startMs).map((s) => s.start);
    assert.deepEqual(relabelled, ['cold', 'warm', 'warm']);
    assert.match(
      renderSummary(regapped),
      /^starts: 1 cold · 2 warm \(cold: the first completed session, and the first after more than 30 s with no completed session open\)\n {2}ttft_ms p50\/p95: cold \d+\.\d\/\d+\.\d ms · warm \d+\.\d\/\d+\.\d ms$/m,
    );
    const warmSummary = jsonSummary(regapped).levels[0]!.coldWarm!;
    assert.deepEqual([warmSummary.cold.metrics.ttft_ms!.count, warmSummary.warm.metrics.ttft_ms!.count], [1, 2]);

    // report render --cold-gap-s does the same from the command line; without it the report keeps its own gap.
    const rendered = async (...flags: string[]): Promise<HeldReport> => {
      const out = await tempDir();
      const result = await runNode([CLI, 'report', 'render', dir, '--outputs', 'json', '--output-dir', out, ...flags]);
      assert.equal(result.code, 0, result.stderr);
      return readHeldReport(out);
    };
    const byStart = (r: HeldReport): string[] => [...r.benchmarks[0]!.sessions].sort((a, b) => a.timeline.startMs - b.timeline.startMs).map((s) => s.start!);
    const [kept, thirty] = [await rendered(), await rendered('--cold-gap-s', '30')];
    assert.equal(kept.benchmarks[0]!.summary.coldWarm!.gapMs, 100);
    assert.deepEqual(byStart(kept), byStart(stored));
    assert.equal(thirty.benchmarks[0]!.summary.coldWarm!.gapMs, 30_000);
    assert.deepEqual(byStart(thirty), ['cold', 'warm', 'warm']);
    const bad = await runNode([CLI, 'report', 'render', dir, '--cold-gap-s', '-1']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--cold-gap-s/);
  });

  it('carry over from one level to the next: a sweep starts cold once', async () => {
    const { report } = await run({ sweep: [1, 2], maxSessions: 2, pace: { kind: 'none' } });
    assert.deepEqual(
      report.benchmarks.map((b) => b.sessions.map((s) => s.start)),
      [
        ['cold', 'warm'],
        ['warm', 'warm'],
      ],
    );
    assert.equal(report.benchmarks[0]!.summary.coldWarm!.gapMs, 30_000, 'the default gap');
    // The same levels read back from the report keep their labels.
    assert.deepEqual(
      recompute(JSON.parse(JSON.stringify(report)) as HeldReport).benchmarks.map((b) => b.sessions.map((s) => s.start)),
      [
        ['cold', 'warm'],
        ['warm', 'warm'],
      ],
    );
  });

  it('leave a refused first attempt warm and label the real cold start cold, against voxbench serve --refuse-first --cold-start-ms', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--quiet', '--refuse-first', '1', '--cold-start-ms', '1500'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(String(d))));
      const target = /listening on (\S+)/.exec(line)![1]!;
      const dir = await tempDir();
      // One session at a time: the refusal, the session that waits for the cold start, one served at once.
      const result = await runNode([
        CLI,
        'run',
        '--target',
        target,
        '--model',
        DEFAULT_MODEL,
        '--concurrency',
        '1',
        '--max-sessions',
        '3',
        '--pace',
        'none',
        '--outputs',
        'json',
        '--output-dir',
        dir,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const report = await readHeldReport(dir);
      const sessions = [...report.benchmarks[0]!.sessions].sort((a, b) => a.timeline.startMs - b.timeline.startMs);
      assert.deepEqual(
        sessions.map((s) => [s.outcome.status, s.start]),
        [
          ['failed', 'warm'],
          ['completed', 'cold'],
          ['completed', 'warm'],
        ],
      );
      const { cold, warm } = report.benchmarks[0]!.summary.coldWarm!;
      // The cold start (the upgrade held) lands in the cold figures, not the warm tail.
      assert.ok(cold.metrics.connect_ms!.p50 >= 1400, `cold connect ${cold.metrics.connect_ms!.p50} ms waited for the cold start`);
      assert.ok(warm.metrics.connect_ms!.p95 < 1400, `warm connect ${warm.metrics.connect_ms!.p95} ms did not`);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('are what voxbench serve makes of HTTP requests too: the first refused with 503, the next held for the cold start', async () => {
    const server = await startServer({ port: 0, refuseFirst: 1, coldStartMs: 400 });
    try {
      const post = async (): Promise<{ status: number; ms: number; body: string }> => {
        const started = performance.now();
        const response = await fetch(`${server.origin}/v1/audio/transcriptions`, { method: 'POST', body: 'not a form' });
        return { status: response.status, body: await response.text(), ms: performance.now() - started };
      };
      const refused = await post();
      assert.deepEqual([refused.status, JSON.parse(refused.body)], [503, { error: 'not ready: the server is starting' }]);
      const held = await post();
      assert.notEqual(held.status, 503);
      assert.ok(held.ms >= 350, `held ${held.ms} ms for the cold start`);
      const warm = await post();
      assert.equal(warm.status, held.status);
      assert.ok(warm.ms < 350, `served at once: ${warm.ms} ms`);
    } finally {
      await server.close();
    }
  });
});
