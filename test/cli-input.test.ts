import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readReport } from '../src/report/recompute.js';
import { readSessionLog, SESSION_LOG } from '../src/report/session-log.js';
import type { Report } from '../src/report/schema.js';
import { run as runBenchmark } from '../src/run/run.js';
import { CLI, runNode, tempDir } from './helpers.js';

const FAST = ['--pace', 'none', '--max-sessions', '3'];

/** Runs the CLI and checks it answered bad input: exit code 2 and exactly `line` on stderr. */
async function rejects(args: string[], line: string | RegExp): Promise<void> {
  const { code, stderr } = await runNode([CLI, ...args]);
  assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
  assert.match(stderr, /^[^\n]*\n$/, `one line on stderr, got ${JSON.stringify(stderr)}`);
  if (typeof line === 'string') assert.equal(stderr, `${line}\n`);
  else assert.match(stderr, line);
}

/** A finished run's folder, for the commands that read one: run in-process (a spawn costs more), as the CLI's run writes it. */
const run = await tempDir();
await runBenchmark({ pace: { kind: 'none' }, maxSessions: 3, outputDir: run });

describe('bad input is exit code 2 with one line on stderr', () => {
  const unwritable = (flag: string): string =>
    `voxbench: error: cannot write to /dev/null/x (ENOTDIR); give a folder that can be created and written with ${flag}`;

  it('an output folder that cannot be created, for every command that writes one', async () => {
    await rejects(['run', '--output-dir', '/dev/null/x'], unwritable('--output-dir'));
    await rejects(
      ['run', '--output-dir', join(run, 'report.json', 'x')],
      `voxbench: error: cannot write to ${join(run, 'report.json', 'x')} (ENOTDIR); give a folder that can be created and written with --output-dir`,
    );
    await rejects(['report', 'render', run, '--output-dir', '/dev/null/x'], unwritable('--output-dir'));
    await rejects(['report', 'merge', run, '--output-dir', '/dev/null/x'], unwritable('--output-dir'));
    await rejects(['report', 'compare', run, run, '--output-dir', '/dev/null/x'], unwritable('--output-dir'));
    await rejects(['dataset', 'synth', join(run, 'report.json'), '--out', '/dev/null/x'], unwritable('--out'));
  });

  it('a usage error from the option parser, with the hint to --help on the same line', async () => {
    await rejects(
      ['run', '--concurrency', 'many'],
      "voxbench: error: option '--concurrency <n>' argument 'many' is invalid. expected whole numbers from 1 up, separated by commas. (run with --help for usage)",
    );
    await rejects(['run', '--no-such-flag'], "voxbench: error: unknown option '--no-such-flag' (run with --help for usage)");
    await rejects(['rnu'], "voxbench: error: unknown command 'rnu' (Did you mean run?) (run with --help for usage)");
  });

  it('a --meta-file that is not JSON, whatever the file holds', async () => {
    const file = join(await tempDir(), 'meta.json');
    await writeFile(file, 'gpu: H100\nruntime:\n  \u001b[2J vllm\n');
    await rejects(['run', '--meta-file', file], new RegExp(`^voxbench: error: --meta-file ${file}: cannot read it as JSON \\(Unexpected token .*\\)\\n$`));
  });
});

describe('a session log that is not one', () => {
  /** A copy of the finished run's folder whose session log is replaced by `log(lines)`, given the log's own lines. */
  async function runWithLog(log: (lines: string[]) => string): Promise<string> {
    const dir = await tempDir();
    await cp(run, dir, { recursive: true }); // a copy, not a run of its own: one run is seconds of the suite
    const lines = (await readFile(join(dir, SESSION_LOG), 'utf8')).split('\n').filter(Boolean);
    assert.equal(lines.length, 3);
    await writeFile(join(dir, SESSION_LOG), log(lines));
    return dir;
  }
  const notAnEntry = (dir: string, line: number): string =>
    `voxbench: error: ${join(dir, SESSION_LOG)} line ${line} is not a voxbench session log entry; repair or remove the line (only a torn last line is skipped)`;

  it('entirely garbage: report render and --resume say where, and exit 2', async () => {
    // The exit code and the one line are the CLI's for any damaged log: spawned for one kind of garbage; the others are
    // read in-process by the same two readers (render's and the resumed run's), which word the message (a spawn costs more).
    const [spawned, ...others] = ['garbage\nmore garbage\n', 'no newline at all', '{"not": "an entry"}\n', '\u001b[2J\u001b]0;pwned\u0007\n'];
    const dir = await runWithLog(() => spawned);
    await Promise.all([rejects(['report', 'render', dir], notAnEntry(dir, 1)), rejects(['run', ...FAST, '--resume', dir], notAnEntry(dir, 1))]);
    for (const garbage of others) {
      const dir = await runWithLog(() => garbage);
      const damaged = { name: 'DamagedLogError', message: notAnEntry(dir, 1).slice('voxbench: error: '.length) };
      await assert.rejects(readReport(dir), damaged);
      await assert.rejects(runBenchmark({ pace: { kind: 'none' }, maxSessions: 3, resume: dir }), damaged);
    }
  });

  it('garbage between entries is an error naming its line', async () => {
    const dir = await runWithLog(([a, b, c]) => `${a}\n${b!.slice(0, 200)}\n${c}\n`);
    // In-process: the test above spawns the CLI for how a damaged log is told; the line is the reader's.
    await assert.rejects(readReport(dir), { name: 'DamagedLogError', message: notAnEntry(dir, 2).slice('voxbench: error: '.length) });
  });

  it('a torn last line is still skipped, and a resumed run cuts it off before appending', async () => {
    const dir = await runWithLog(([a, b, c]) => `${a}\n${b}\n${c!.slice(0, 500)}`);
    // A log is torn by a run killed mid-line: its report.json is still the one the run wrote before its first session.
    const finished = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    await writeFile(join(dir, 'report.json'), JSON.stringify({ ...finished, stoppedBy: 'interrupted', benchmarks: [] }));
    const render = await runNode([CLI, 'report', 'render', dir]);
    assert.equal(render.code, 0, render.stderr);
    assert.equal(render.stderr, '');
    const resumed = await runNode([CLI, 'run', ...FAST, '--resume', dir]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const logged = await readSessionLog(dir);
    assert.deepEqual(
      logged.map((e) => e.record.index),
      [0, 1, 2],
      'the session that was torn ran again, on a line of its own',
    );
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    assert.equal(report.benchmarks[0]!.sessions.length, 3);
  });
});
