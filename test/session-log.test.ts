import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readSessionLog, SESSION_LOG, SessionLog, SessionLogError, type LoggedSession } from '../src/report/session-log.js';
import { tempDir } from './helpers.js';

/** A log entry with a big timeline-like array, so lines span many pieces and the file pushes back. */
function entry(index: number): LoggedSession {
  const chunks = Array.from({ length: 2000 }, (_, seq) => ({ seq, turn: 0, plannedMs: seq * 100, sentMs: seq * 100 + 0.5, bytes: 3200 }));
  return {
    level: 'concurrent-4',
    profile: { kind: 'concurrent', concurrency: 4 },
    startedAt: '2026-12-01T00:00:00.000Z',
    record: { index, chunks },
  } as unknown as LoggedSession;
}

describe('session log', () => {
  it('writes every appended session, in order, by the time close() resolves', async () => {
    const dir = await tempDir();
    const log = await SessionLog.open(dir, false);
    const entries = Array.from({ length: 200 }, (_, i) => entry(i));
    for (const e of entries) log.append(e);
    await log.close();
    assert.deepEqual(await readSessionLog(dir), entries);
  });

  it('is a file in the folder once open() resolves: the report written next must find it, not write a log of its own over it', async () => {
    const dir = await tempDir();
    const log = await SessionLog.open(dir, false);
    assert.ok(existsSync(join(dir, SESSION_LOG)));
    await log.close();
  });

  it('continues a log with resume, after what it already holds', async () => {
    const dir = await tempDir();
    const first = await SessionLog.open(dir, false);
    first.append(entry(0));
    await first.close();
    const second = await SessionLog.open(dir, true);
    second.append(entry(1));
    second.append(entry(2));
    await second.close();
    assert.deepEqual(
      (await readSessionLog(dir)).map((e) => e.record.index),
      [0, 1, 2],
    );
  });

  it('fails open() when the file cannot be opened, before any session is measured', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, SESSION_LOG)); // a folder where the file should be
    await assert.rejects(
      SessionLog.open(dir, false),
      (err: Error) => err instanceof SessionLogError && err.message.includes(SESSION_LOG) && /EISDIR/.test(err.message),
    );
  });
});

describe('a session log that cannot be written during a run', () => {
  it('is a classified error naming the file, and the report still holds every session', async () => {
    const { mkdtemp, readFile, rm, symlink } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { run } = await import('../src/run/run.js');
    const dir = await mkdtemp(join(tmpdir(), 'voxbench-full-'));
    try {
      // Every write to /dev/full fails with ENOSPC, as on a full disk.
      await symlink('/dev/full', join(dir, SESSION_LOG));
      await assert.rejects(
        run({ maxSessions: 2, pace: { kind: 'realtime', speed: 8 }, outputDir: dir }),
        (err: Error) =>
          err instanceof SessionLogError &&
          err.message.includes(SESSION_LOG) &&
          /ENOSPC/.test(err.message) &&
          /report\.json holds every session that finished/.test(err.message),
      );
      const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { benchmarks: Array<{ sessions: unknown[] }> };
      assert.equal(report.benchmarks[0]!.sessions.length, 2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
