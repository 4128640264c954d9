import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readHeldReport } from '../src/report/recompute.js';
import type { HeldReport } from '../src/report/schema.js';
import { CLI, runNode, sharedTarget, tempDir } from './helpers.js';

// For runs whose checks do not depend on where the server runs: the file's in-process one saves each a server thread (see sharedTarget).
const { target, model } = await sharedTarget();
const LOCAL = ['--target', target, '--model', model];

const HEADER = /^target ws:\/\/127\.0\.0\.1:\d+\/v1\/realtime \(built-in server\) · model \S+ · data bundled samples · output \S+$/;
const PROGRESS = /^synchronous · \d+:\d\d elapsed · (ETA \d+:\d\d · )?sessions \d\/1 done · [01] in flight · 0 failed · ttft_ms p50 (n\/a|\d+ ms)$/;

async function report(dir: string): Promise<HeldReport> {
  return readHeldReport(dir);
}

describe('a run you can watch (spawned)', () => {
  it('off a terminal: the header before any session ends, then plain progress lines; --quiet has none', async () => {
    const out = await tempDir();
    // One real-time session (about 3 s): the header must come while it is still running.
    const child = spawn(process.execPath, [CLI, 'run', '--max-sessions', '1', '--output-dir', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise((resolve) => child.stderr.once('data', resolve));
    const logAtHeader = await readFile(join(out, 'sessions.jsonl'), 'utf8');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(logAtHeader, '', 'no session had ended when the header was printed');
    const lines = stderr.trimEnd().split('\n');
    assert.match(lines[0]!, HEADER);
    assert.ok(lines.length >= 3, `a line every few seconds and one as the level ends: ${stderr}`);
    for (const line of lines.slice(1)) assert.match(line, PROGRESS);
    assert.match(lines.at(-1)!, /sessions 1\/1 done · 0 in flight/);

    const quiet = await runNode([CLI, 'run', ...LOCAL, '--quiet', '--pace', '8x', '--max-sessions', '1', '--output-dir', await tempDir()]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, '');
  });

  it('--duration keeps a closed loop starting sessions until it ends, and lets them finish', async () => {
    const out = await tempDir();
    const result = await runNode([
      CLI,
      'run',
      ...LOCAL,
      '--quiet',
      '--pace',
      '8x',
      '--profile',
      'concurrent',
      '--concurrency',
      '2',
      '--duration',
      '2s',
      '--output-dir',
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const { config, benchmarks } = await report(out);
    assert.equal(config.duration, 2);
    const [level] = benchmarks;
    assert.equal(level!.stoppedBy, undefined);
    assert.ok(level!.sessions.length > 2, `more sessions than lanes: ${level!.sessions.length}`);
    for (const session of level!.sessions) {
      assert.ok(session.timeline.plannedStartMs < level!.startMs + 2000, `session ${session.index} started after the end`);
      assert.equal(session.outcome.status, 'completed');
    }
    // Samples keep cycling round robin over the six bundled ones.
    for (const session of level!.sessions) assert.equal(session.sampleIds[0], level!.sessions[session.index % 6]!.sampleIds[0]);
  });

  it('--duration plans open-loop arrivals for that long', async () => {
    const out = await tempDir();
    const result = await runNode([
      CLI,
      'run',
      ...LOCAL,
      '--quiet',
      '--pace',
      '8x',
      '--profile',
      'constant',
      '--rate',
      '8',
      '--duration',
      '2s',
      '--output-dir',
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const [level] = (await report(out)).benchmarks;
    assert.equal(level!.sessions.length, 16, 'arrivals at 0, 125, … 1875 ms');
    assert.match(result.stdout, /^constant@8\/s: p95 and p99 of ttft_ms rest on 16 values \(trust p95 from 20, p99 from 100\)$/m);
    for (const session of level!.sessions) {
      assert.ok(session.timeline.plannedStartMs < level!.startMs + 2000);
      assert.equal(session.outcome.status, 'completed');
    }
  });

  it('exit 3 ends with one line saying why', async () => {
    const out = await tempDir();
    const result = await runNode([
      CLI,
      'run',
      '--quiet',
      '--target',
      'ws://127.0.0.1:9/v1/realtime',
      '--model',
      'm',
      '--max-sessions',
      '2',
      '--output-dir',
      out,
    ]);
    assert.equal(result.code, 3);
    assert.equal(result.stderr, 'no session completed: 2 failed, connect_refused\n');
  });

  it('exit 4 ends with one line naming the SLO, its measured value and the level', async () => {
    const out = await tempDir();
    const result = await runNode([CLI, 'run', ...LOCAL, '--quiet', '--pace', '8x', '--max-sessions', '2', '--slo', 'p95(ttft_ms)<1', '--output-dir', out]);
    assert.equal(result.code, 4);
    assert.match(result.stderr, /^SLO failed: p95\(ttft_ms\)<1 measured \d+(\.\d+)? at synchronous\n$/);
  });

  it('lists every file it wrote', async () => {
    const out = await tempDir();
    const result = await runNode([CLI, 'run', ...LOCAL, '--quiet', '--pace', '8x', '--max-sessions', '1', '--outputs', 'md,csv', '--output-dir', out]);
    assert.equal(result.code, 0, result.stderr);
    const files = ['report.json', 'turns.csv', 'sessions.csv', 'levels.csv', 'starts.csv', 'summary.md', 'sessions.jsonl'].map((f) => join(out, f));
    assert.match(result.stdout, new RegExp(`^Wrote: ${files.join(', ')}$`, 'm'));
  });
});
