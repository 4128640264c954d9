import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { summarize } from '../src/metrics/stats.js';
import { readHeldReport } from '../src/report/recompute.js';
import type { HeldReport, HeldSession } from '../src/report/schema.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { CLI, runNode, tempDir, testServer } from './helpers.js';

/** What a session is, whichever process ran it: its place, its samples, what the server answered, and the figures that do not depend on timing. */
const identity = (s: HeldSession) => ({
  index: s.index,
  sampleIds: s.sampleIds,
  outcome: s.outcome.status,
  finals: s.timeline.received.filter((e) => e.kind === 'text_final').map((e) => e.text),
  wer: s.metrics.inputs.map((i) => i.wer),
  audioMs: s.metrics.inputs.map((i) => i.audio_ms),
  counters: s.timeline.counters,
});
const sessionsOf = (report: HeldReport): HeldSession[] => report.benchmarks.flatMap((b) => b.sessions);

/** Runs `voxbench run` against `target` into a fresh folder; resolves with the folder. */
async function cliRun(target: string, flags: string[]): Promise<string> {
  const dir = await tempDir();
  const { code, stderr } = await runNode([CLI, 'run', '--target', target, '--model', DEFAULT_MODEL, '--pace', '8x', '--quiet', '--output-dir', dir, ...flags]);
  assert.equal(code, 0, stderr);
  return dir;
}

describe('sharded runs', () => {
  it('N shard processes against one server, merged, are the unsharded run: the same sessions, figures and recomputed distributions', async () => {
    const server = await testServer();
    const flags = ['--concurrency', '3', '--max-sessions', '12'];
    const [whole, ...shards] = await Promise.all([
      cliRun(server.url, flags),
      ...[0, 1, 2].map((i) => cliRun(server.url, [...flags, '--shard', `${i}/3`, '--run-id', 'run-a'])),
    ]);
    const parts = await Promise.all(shards.map((dir) => readHeldReport(dir)));
    assert.deepEqual(
      parts.map((p) => p.config.shard),
      [0, 1, 2].map((index) => ({ index, count: 3 })),
    );
    assert.ok(parts.every((p) => p.config.runId === 'run-a' && p.benchmarks[0]!.label === 'concurrent@3'));
    // Each shard ran one lane: sessions i with i mod 3 = its index.
    assert.deepEqual(
      parts.map((p) => sessionsOf(p).map((s) => s.index)),
      [
        [0, 3, 6, 9],
        [1, 4, 7, 10],
        [2, 5, 8, 11],
      ],
    );
    // Each lane starts at its phase of the whole level (one 12.5 ms chunk period at 8x), in its shard as in the unsharded run.
    const phases = (reports: HeldReport[]) =>
      sessionsOf({ benchmarks: reports.flatMap((r) => r.benchmarks) } as HeldReport)
        .filter((s) => s.index < 3)
        .sort((x, y) => x.index - y.index)
        .map((s) => s.laneOffsetMs);
    assert.deepEqual(phases(parts), [0, 12.5 / 3, 25 / 3]);

    const out = await tempDir();
    const merge = await runNode([CLI, 'report', 'merge', ...shards, '--output-dir', out]);
    assert.equal(merge.code, 0, merge.stderr);
    const merged = await readHeldReport(out);
    const unsharded = await readHeldReport(whole);
    assert.deepEqual(phases([unsharded]), phases(parts));
    assert.equal(merged.config.shard, undefined, 'the merge is the whole run');
    assert.deepEqual(sessionsOf(merged).map(identity), sessionsOf(unsharded).map(identity), 'identical session sets and per-session figures');
    assert.deepEqual(merged.dataset, unsharded.dataset, 'the shared dataset counts once');
    const summary = merged.benchmarks[0]!.summary;
    assert.equal(summary.sessions.total, 12);
    assert.deepEqual(summary.quality, unsharded.benchmarks[0]!.summary.quality);
    for (const metric of ['ttft_ms', 'finalization_ms', 'commit_to_flush_ms']) {
      const values = sessionsOf(merged).flatMap((s) => s.metrics.inputs.map((i) => i[metric]!));
      assert.deepEqual(summary.metrics[metric], summarize(values), `${metric}: recomputed from the merged sessions, never averaged`);
      assert.equal(summary.metrics[metric]!.count, unsharded.benchmarks[0]!.summary.metrics[metric]!.count);
    }

    // A missing shard is refused, not merged as if it were the whole run.
    const partial = await runNode([CLI, 'report', 'merge', shards[0]!, shards[2]!, '--output-dir', join(out, 'partial')]);
    assert.equal(partial.code, 2);
    assert.match(partial.stderr, /run run-a: shard 1 of 3 missing/);
  });

  it('splits an open-loop schedule so that the union of the shards is the whole schedule, each session at its planned time', async () => {
    const server = await testServer();
    const flags = ['--rate', '40', '--max-sessions', '8'];
    const [whole, ...shards] = await Promise.all([
      cliRun(server.url, flags),
      ...[0, 1].map((i) => cliRun(server.url, [...flags, '--shard', `${i}/2`, '--run-id', 'run-b'])),
    ]);
    /** Planned start offsets from the level's start, by session index. */
    const planned = (report: HeldReport) =>
      new Map(report.benchmarks[0]!.sessions.map((s) => [s.index, s.timeline.plannedStartMs - report.benchmarks[0]!.startMs]));
    const parts = await Promise.all(shards.map((dir) => readHeldReport(dir)));
    const union = new Map([...planned(parts[0]!), ...planned(parts[1]!)]);
    assert.deepEqual([...planned(parts[0]!).keys()], [0, 2, 4, 6]);
    const schedule = planned(await readHeldReport(whole));
    assert.deepEqual(
      [...union.keys()].sort((a, b) => a - b),
      [...schedule.keys()],
    );
    for (const [index, offset] of schedule) assert.ok(Math.abs(union.get(index)! - offset) < 1e-6, `session ${index} planned at ${offset} ms`);
  });

  it('--shards N reads the shard from JOB_COMPLETION_INDEX, and refuses to run without it or without a run id', async () => {
    const server = await testServer();
    const dir = await tempDir();
    const ok = await runNode(
      [
        CLI,
        'run',
        '--target',
        server.url,
        '--model',
        DEFAULT_MODEL,
        '--pace',
        'none',
        '--quiet',
        '--concurrency',
        '2',
        '--max-sessions',
        '4',
        '--shards',
        '2',
        '--output-dir',
        dir,
      ],
      { JOB_COMPLETION_INDEX: '1', VOXBENCH_RUN_ID: 'job-1' },
    );
    assert.equal(ok.code, 0, ok.stderr);
    const report = await readHeldReport(dir);
    assert.deepEqual([report.config.shard, report.config.runId, sessionsOf(report).map((s) => s.index)], [{ index: 1, count: 2 }, 'job-1', [1, 3]]);
    const refused = (flags: string[], env: NodeJS.ProcessEnv) => runNode([CLI, 'run', '--output-dir', join(dir, 'refused'), ...flags], env);
    const unset = await refused(['--shards', '2', '--run-id', 'x'], { JOB_COMPLETION_INDEX: '' });
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /--shards 2 takes the shard index from JOB_COMPLETION_INDEX/);
    const noId = await refused(['--shard', '0/2'], { VOXBENCH_RUN_ID: '' });
    assert.equal(noId.code, 2);
    assert.match(noId.stderr, /a sharded run needs --run-id/);
  });
});
