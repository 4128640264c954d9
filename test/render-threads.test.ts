import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeOutputs } from '../src/report/outputs.js';
import { readReport } from '../src/report/recompute.js';
import { DamagedLogError, SESSION_LOG, splitSessionLog } from '../src/report/session-log.js';
import { run } from '../src/run/run.js';
import { tempDir } from './helpers.js';

/**
 * A large session log is read in parts on worker threads (issue 38): whatever the
 * number of threads, the same report, byte for byte, and the same refusals.
 */
const OUTPUTS = ['json', 'html', 'csv', 'md'] as const;

/** Every output written from the report read with `threads`, by file name. */
async function rendered(dir: string, threads: number): Promise<Map<string, string>> {
  const out = await tempDir();
  await writeOutputs(await readReport(dir, { threads }), out, OUTPUTS);
  const names = (await readdir(out)).sort();
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(out, name), 'utf8')] as [string, string])));
}

describe('reading the session log on several threads', () => {
  let finished: string;
  let killed: string;
  let lines: string[];
  let root: string;
  // Made here, not with tempDir, whose clean-up would run when this hook ends.
  after(() => rm(root, { recursive: true, force: true }));
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'voxbench-test-'));
    [finished, killed] = [join(root, 'finished'), join(root, 'killed')];
    const { report } = await run({
      maxSessions: 7,
      profile: { kind: 'concurrent', concurrency: 2 },
      pace: { kind: 'none' },
      turnsPerSession: 2,
      outputDir: finished,
      outputs: ['json'],
    });
    lines = (await readFile(join(finished, SESSION_LOG), 'utf8')).split('\n').filter((l) => l !== '');
    // What a killed run leaves: the report written before its first session, and the log.
    await writeOutputs({ ...report, stoppedBy: 'interrupted', benchmarks: [] }, killed, ['json']);
    await writeFile(join(killed, SESSION_LOG), lines.map((l) => `${l}\n`).join(''));
  });

  it('renders a finished run and a killed one to the same bytes on 1, 2 and 3 threads', async () => {
    for (const dir of [finished, killed]) {
      const one = await rendered(dir, 1);
      assert.ok(one.has('report.html') && one.has('turns.csv'));
      for (const threads of [2, 3]) assert.deepEqual(await rendered(dir, threads), one, `${threads} threads`);
    }
    const sessions = (await readReport(killed, { threads: 3 })).benchmarks.flatMap((b) => b.sessions.map((s) => s.index));
    assert.deepEqual(sessions, [0, 1, 2, 3, 4, 5, 6], 'every session of the log, in order, once');
  });

  it('cuts the log where lines begin, into fewer parts where a line is longer than a part', async () => {
    const path = join(finished, SESSION_LOG);
    const text = await readFile(path);
    const parts = await splitSessionLog(path, text.length, [1, 2, 1]);
    assert.equal(parts.length, 3);
    const longest = Math.max(...lines.map((l) => Buffer.byteLength(l) + 1));
    assert.ok(
      Math.abs(parts[1]!.start - text.length / 4) < longest,
      `the first part ends within a line of a quarter of the log (${parts[1]!.start} of ${text.length})`,
    );
    assert.ok(Math.abs(parts[2]!.start - (text.length * 3) / 4) < longest, 'the second part, within a line of three quarters');
    assert.equal(parts[0]!.start, 0);
    assert.equal(parts.at(-1)!.end, text.length);
    parts.forEach((part, i) => {
      assert.equal(text[part.start - 1] ?? 0x0a, 0x0a, `part ${i} begins a line`);
      if (i > 0) assert.equal(part.start, parts[i - 1]!.end, 'the parts are contiguous');
    });
    assert.equal((await splitSessionLog(path, text.length, Array<number>(100).fill(1))).length, lines.length, 'no more parts than lines');
  });

  it("names the damaged line of a later thread's part by its number in the whole log, and skips a torn last line", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'report.json'), await readFile(join(killed, 'report.json')));
    const damaged = lines.map((l, i) => (i === 5 ? '{"not": "an entry"}' : l));
    await writeFile(join(dir, SESSION_LOG), damaged.map((l) => `${l}\n`).join(''));
    await assert.rejects(readReport(dir, { threads: 3 }), (err: Error) => {
      assert.ok(err instanceof DamagedLogError, err.message);
      assert.match(err.message, /sessions\.jsonl line 6 is not a voxbench session log entry/);
      return true;
    });
    await writeFile(join(dir, SESSION_LOG), lines.map((l) => `${l}\n`).join('') + lines[0]!.slice(0, 200));
    assert.equal((await readReport(dir, { threads: 3 })).benchmarks[0]!.sessions.length, lines.length);
  });
});
