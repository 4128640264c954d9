import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultOutputDir } from '../src/cli/output-dir.js';
import { LOCK_FILE, lockFolder } from '../src/util/folder-lock.js';
import { writeText } from '../src/report/write-text.js';
import { CLI, runNode, sharedTarget, tempDir } from './helpers.js';

// What these runs check of their folders does not depend on where the server runs: the file's in-process one saves each a server thread (see sharedTarget).
const { target, model } = await sharedTarget();

describe('output folders', () => {
  it('default folders of runs started at the same moment differ', () => {
    const now = new Date('2026-11-29T10:00:00.123Z');
    const [a, b] = [defaultOutputDir(now), defaultOutputDir(now)];
    assert.match(a, /^voxbench-runs\/2026-11-29T10-00-00-123Z-[0-9a-f]{6}$/);
    assert.notEqual(a, b);
  });

  it('a folder in use by a live run is refused; its release, or a dead holder, frees it', async () => {
    const dir = await tempDir();
    const release = await lockFolder(dir);
    assert.equal(await readFile(join(dir, LOCK_FILE), 'utf8'), `${process.pid}\n`);
    await assert.rejects(lockFolder(dir), new RegExp(`^UsageError: ${dir} is in use by another voxbench run \\(pid ${process.pid}\\);`));
    await release();
    await (
      await lockFolder(dir)
    )();
    // A killed run's lock: its pid is gone.
    const { pid } = spawnSync(process.execPath, ['-e', '']);
    await writeFile(join(dir, LOCK_FILE), `${pid}\n`);
    const takenOver = await lockFolder(dir);
    assert.equal(await readFile(join(dir, LOCK_FILE), 'utf8'), `${process.pid}\n`);
    await takenOver();
    assert.deepEqual(await readdir(dir), [], 'released at the end');
  });

  it('run refuses a folder another run holds, in one line with exit code 2, writing nothing', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, LOCK_FILE), `${process.pid}\n`);
    const result = await runNode([CLI, 'run', '--target', target, '--model', model, '--pace', 'none', '--max-sessions', '1', '--output-dir', dir]);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /^voxbench: error: .* is in use by another voxbench run \(pid \d+\); give another output folder, or remove .* if no run uses it\n$/,
    );
    assert.deepEqual(await readdir(dir), [LOCK_FILE]);
  });

  it('report render refuses to write into a folder a run holds, and renders once it is free', async () => {
    const dir = await tempDir();
    const made = await runNode([CLI, 'run', '--target', target, '--model', model, '--pace', 'none', '--max-sessions', '1', '--output-dir', dir]);
    assert.equal(made.code, 0, made.stderr);
    const before = await readFile(join(dir, 'report.json'), 'utf8');
    await writeFile(join(dir, LOCK_FILE), `${process.pid}\n`);
    const refused = await runNode([CLI, 'report', 'render', dir, '--outputs', 'json,md']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /is in use by another voxbench run/);
    assert.equal(await readFile(join(dir, 'report.json'), 'utf8'), before, 'nothing rewritten');
    await rm(join(dir, LOCK_FILE));
    const rendered = await runNode([CLI, 'report', 'render', dir, '--outputs', 'json,md']);
    assert.equal(rendered.code, 0, rendered.stderr);
    assert.ok(!(await readdir(dir)).includes(LOCK_FILE), 'released after the render');
  });

  it('run refuses a folder holding a finished run, exit 2, saying how to keep or replace it; --overwrite replaces it', async () => {
    const dir = await tempDir();
    const flags = ['run', '--target', target, '--model', model, '--pace', 'none', '--max-sessions', '1', '--quiet', '--output-dir', dir];
    assert.equal((await runNode([CLI, ...flags])).code, 0);
    const before = await readFile(join(dir, 'report.json'), 'utf8');
    const refused = await runNode([CLI, ...flags]);
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr,
      `voxbench: error: ${dir} holds a run (report.json); continue it with --resume ${dir}, give a new folder with --output-dir, or replace it with --overwrite\n`,
    );
    assert.equal(await readFile(join(dir, 'report.json'), 'utf8'), before, 'the finished run is kept');
    // A crashed run left only its session log: still a run, kept.
    await rm(join(dir, 'report.json'));
    assert.match((await runNode([CLI, ...flags])).stderr, /holds a run \(sessions\.jsonl\)/);
    const replaced = await runNode([CLI, ...flags, '--overwrite']);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.notEqual(await readFile(join(dir, 'report.json'), 'utf8'), before);
    const both = await runNode([CLI, 'run', '--resume', dir, '--overwrite']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--overwrite replaces the run in --output-dir; --resume continues its run/);
  });

  it('a report is written whole or not at all', async () => {
    const dir = await tempDir();
    const path = join(dir, 'report.json');
    await writeText(path, ['{"old":', 'true}']);
    function* failing(): Generator<string> {
      yield 'x'.repeat(1 << 17);
      throw new Error('disk gone');
    }
    await assert.rejects(writeText(path, failing()), /disk gone/);
    assert.equal(await readFile(path, 'utf8'), '{"old":true}');
    assert.deepEqual(await readdir(dir), ['report.json'], 'no temporary file left');
  });
});
