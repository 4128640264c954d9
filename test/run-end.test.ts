import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { access, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LOCK_FILE } from '../src/util/folder-lock.js';
import { ErrorStop, UNREACHABLE_AFTER } from '../src/load/error-stop.js';
import { readSessionLog } from '../src/report/session-log.js';
import type { Report } from '../src/report/schema.js';
import type { SessionOutcome, SessionRecord } from '../src/timeline/types.js';
import { run } from '../src/run/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { CLI, tempDir, testServer } from './helpers.js';

/** Any spawned CLI still running after this is killed, so a hang fails its test instead of the suite. */
const CHILD_LIMIT_MS = 60_000;

interface Cli {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnCli(args: string[]): Cli {
  const child = spawn(process.execPath, [CLI, 'run', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_LIMIT_MS);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    }),
  );
  return { child, stderr: () => stderr, exit };
}

/** A loopback port that refuses connections: bound, noted, closed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const readReport = async (dir: string): Promise<Report> => JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
const lockLeft = (dir: string): Promise<boolean> =>
  access(join(dir, LOCK_FILE)).then(
    () => true,
    () => false,
  );
const lastLine = (text: string): string => text.trimEnd().split('\n').at(-1)!;

describe('runs that cannot succeed stop early', () => {
  it('a dead target with --duration 5 stops after its first 10 sessions: exit 3, one line why, a small report', { timeout: CHILD_LIMIT_MS }, async () => {
    const dir = await tempDir();
    const cli = spawnCli(['--target', `ws://127.0.0.1:${await deadPort()}/v1/realtime`, '--model', 'm', '--duration', '5', '--quiet', '--output-dir', dir]);
    const { code } = await cli.exit;
    assert.equal(code, 3);
    assert.equal(cli.stderr(), 'no session completed: 10 failed, connect_refused; stopped synchronous: its first 10 sessions all failed before any answer\n');
    const report = await readReport(dir);
    const [benchmark] = report.benchmarks;
    assert.equal(benchmark!.stoppedBy, 'unreachable');
    assert.equal(benchmark!.summary.sessions.total, 10);
    assert.ok((await stat(join(dir, 'report.json'))).size < 200_000, 'a report of ten sessions, not thousands');
    assert.equal(await lockLeft(dir), false);
  });

  it('a sweep against a dead target runs no later level', async () => {
    const { report } = await run({ target: `ws://127.0.0.1:${await deadPort()}/v1/realtime`, model: 'm', sweep: [1, 2], duration: 5 });
    assert.deepEqual(
      report.benchmarks.map((b) => [b.label, b.stoppedBy]),
      [['concurrent@1', 'unreachable']],
    );
  });

  it('sessions the server answers, even with a refusal, never count as unreachable', async () => {
    const server = await testServer({ faults: [[{ name: 'upgrade', status: 503 }]] });
    const { report } = await run({ target: server.url, model: DEFAULT_MODEL, maxSessions: 12 });
    assert.equal(report.benchmarks[0]!.stoppedBy, undefined);
    assert.equal(report.benchmarks[0]!.summary.sessions.failed, 12);
  });

  it('only the first sessions started judge a target unreachable: one answered among them, however late it ends, keeps the level running', () => {
    const ended = (outcome: SessionOutcome): SessionRecord => ({ outcome }) as SessionRecord;
    const refused = ended({ status: 'failed', failure: { class: 'connect_refused', stage: 'connect', message: 'refused' } });
    const stop = new ErrorStop();
    const first = stop.start();
    for (let i = 1; i < UNREACHABLE_AFTER; i++) assert.equal(stop.ended(refused, stop.start()), undefined);
    assert.equal(stop.ended(ended({ status: 'completed' }), first), undefined, 'the first session started was answered');
    assert.equal(stop.ended(refused, stop.start()), undefined, 'sessions started later do not count');
    const dead = new ErrorStop();
    const reasons = Array.from({ length: UNREACHABLE_AFTER }, () => dead.ended(refused, dead.start()));
    assert.deepEqual(reasons.at(-1), 'unreachable');
    assert.equal(reasons.filter(Boolean).length, 1);
  });

  it(
    '--max-errors 3 stops a level at its third failure; sessions in flight end incomplete and stay in the counts; exit 3',
    { timeout: CHILD_LIMIT_MS },
    async () => {
      const server = await testServer({ faults: [[{ name: 'upgrade', status: 503 }]], faultRate: 0.5 });
      const dir = await tempDir();
      const cli = spawnCli([
        '--target',
        server.url,
        '--model',
        DEFAULT_MODEL,
        '--concurrency',
        '4',
        '--max-sessions',
        '40',
        '--max-errors',
        '3',
        '--pace',
        '8x',
        '--quiet',
        '--output-dir',
        dir,
      ]);
      const { code } = await cli.exit;
      assert.equal(code, 3, cli.stderr());
      const report = await readReport(dir);
      const { sessions, stoppedBy, summary } = report.benchmarks[0]!;
      assert.equal(stoppedBy, 'max_errors');
      assert.equal(report.config.maxErrors, 3);
      assert.ok(summary.sessions.failed >= 3 && summary.sessions.total < 40, JSON.stringify(summary.sessions));
      assert.equal(
        lastLine(cli.stderr()),
        `stopped for errors: concurrent@4: --max-errors 3 reached (${summary.sessions.failed} failed, ${summary.sessions.completed} completed)`,
      );
      assert.ok(summary.sessions.incomplete > 0, 'the sessions running when it stopped');
      for (const s of sessions.filter((s) => s.outcome.status === 'incomplete'))
        assert.deepEqual(s.outcome, { status: 'incomplete', reason: 'max_errors', stage: (s.outcome as { stage: string }).stage });
      assert.equal(sessions.length, summary.sessions.total, 'nothing dropped');
      assert.equal((await readSessionLog(dir)).length, summary.sessions.total);
    },
  );

  it('--max-error-rate stops a level once its rate passes, after --error-min-sessions: exit 3', { timeout: CHILD_LIMIT_MS }, async () => {
    const server = await testServer({ faults: [[{ name: 'upgrade', status: 503 }]], faultRate: 0.5 });
    const dir = await tempDir();
    const cli = spawnCli([
      '--target',
      server.url,
      '--model',
      DEFAULT_MODEL,
      '--max-sessions',
      '40',
      '--max-error-rate',
      '0.3',
      '--error-min-sessions',
      '4',
      '--pace',
      '8x',
      '--quiet',
      '--output-dir',
      dir,
    ]);
    const { code } = await cli.exit;
    assert.equal(code, 3, cli.stderr());
    const { stoppedBy, summary } = (await readReport(dir)).benchmarks[0]!;
    assert.equal(stoppedBy, 'error_rate');
    assert.ok(summary.sessions.total >= 4 && summary.sessions.total < 40);
    assert.ok(summary.sessions.failed / summary.sessions.total > 0.3);
    assert.match(lastLine(cli.stderr()), /^(stopped for errors: |no session completed: .*; stopped )synchronous: error rate over --max-error-rate 0\.3/);
  });

  it('refuses --max-errors 0 with one line, exit 2', { timeout: CHILD_LIMIT_MS }, async () => {
    const cli = spawnCli(['--max-errors', '0']);
    assert.equal((await cli.exit).code, 2);
    assert.equal(cli.stderr(), 'voxbench: error: --max-errors must be a positive integer, got 0\n');
  });
});

describe('how a run ends', () => {
  it('a reader that closes after the first line: the run ends quietly, report.json complete, no lock left', { timeout: CHILD_LIMIT_MS }, async () => {
    const dir = await tempDir();
    const cli = spawnCli(['--pace', '4x', '--max-sessions', '4', '--output-dir', dir]);
    // Progress goes to stderr (a line every 2 s off a terminal), the summary to stdout: close both, as `2>&1 | head -1` does.
    await new Promise<void>((resolve) => cli.child.stderr!.on('data', () => cli.stderr().includes('\n') && resolve()));
    cli.child.stderr!.destroy();
    cli.child.stdout!.destroy();
    const { code, signal } = await cli.exit;
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
    const report = await readReport(dir);
    assert.equal(report.stoppedBy, undefined);
    assert.equal(report.benchmarks[0]!.summary.sessions.completed, 4);
    assert.equal(await lockLeft(dir), false);
  });

  for (const [signal, exit] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} finishes report.json with what was measured, exit ${exit}, no lock left`, { timeout: CHILD_LIMIT_MS }, async () => {
      const dir = await tempDir();
      const cli = spawnCli(['--pace', '4x', '--max-sessions', '20', '--output-dir', dir]);
      for (let logged = 0; logged < 1; logged = (await readSessionLog(dir).catch(() => [])).length) await new Promise((r) => setTimeout(r, 50));
      cli.child.kill(signal);
      assert.deepEqual(await cli.exit, { code: exit, signal: null });
      const report = await readReport(dir);
      assert.equal(report.stoppedBy, 'interrupted');
      const { completed, total } = report.benchmarks[0]!.summary.sessions;
      assert.ok(completed >= 1 && total < 20, `${completed} of ${total}`);
      assert.match(cli.stderr(), new RegExp(`^interrupted \\(${signal}\\): finishing the report`, 'm'));
      assert.equal(await lockLeft(dir), false);
    });
  }

  it('a process that exits holding a folder lock (a second Ctrl-C quits at once) removes it', { timeout: CHILD_LIMIT_MS }, async () => {
    const dir = await tempDir();
    const lock = new URL('../src/util/folder-lock.js', import.meta.url).href;
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { lockFolder } = await import(${JSON.stringify(lock)}); await lockFolder(${JSON.stringify(dir)}); process.exit(130);`,
      ],
      { stdio: 'inherit' },
    );
    assert.equal(await new Promise((resolve) => child.once('exit', resolve)), 130);
    assert.equal(await lockLeft(dir), false);
  });
});
