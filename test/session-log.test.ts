import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readSessionLog, SESSION_LOG, SessionLog, type LoggedSession } from '../src/report/session-log.js';
import { tempDir } from './helpers.js';

/** A log entry with a big timeline-like array, so lines span many pieces and the file pushes back. */
function entry(index: number): LoggedSession {
  const chunks = Array.from({ length: 2000 }, (_, seq) => ({ seq, turn: 0, plannedMs: seq * 100, sentMs: seq * 100 + 0.5, bytes: 3200 }));
  return { level: 'concurrent-4', profile: { kind: 'concurrent', concurrency: 4 }, startedAt: '2026-12-01T00:00:00.000Z', record: { index, chunks } } as unknown as LoggedSession;
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

  it('continues a log with resume, after what it already holds', async () => {
    const dir = await tempDir();
    const first = await SessionLog.open(dir, false);
    first.append(entry(0));
    await first.close();
    const second = await SessionLog.open(dir, true);
    second.append(entry(1));
    second.append(entry(2));
    await second.close();
    assert.deepEqual((await readSessionLog(dir)).map((e) => e.record.index), [0, 1, 2]);
  });

  it('fails close() when the file cannot be written, rather than losing sessions silently', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, SESSION_LOG)); // a folder where the file should be
    const log = await SessionLog.open(dir, false);
    log.append(entry(0));
    await assert.rejects(log.close(), { code: 'EISDIR' });
  });
});
