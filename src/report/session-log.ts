import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadProfile } from '../load/profiles.js';
import { shiftTimeline, type SessionRecord } from '../timeline/types.js';

export const SESSION_LOG = 'sessions.jsonl';

/** One line of the session log: a finished session and the benchmark level it belongs to. */
export interface LoggedSession {
  level: string;
  profile: LoadProfile;
  /** The start of the run that measured it: its times are on that run's clock. */
  startedAt: string;
  record: SessionRecord;
}

/**
 * Sessions appended to `sessions.jsonl` as they end, so a run that is killed or
 * crashes keeps what it measured: `voxbench report render DIR` rebuilds the report
 * from it, and `--resume DIR` continues without repeating finished sessions.
 */
export class SessionLog {
  private constructor(private readonly stream: WriteStream) {}

  /** A new log, or with `resume` the folder's log continued. */
  static async open(dir: string, resume: boolean): Promise<SessionLog> {
    await mkdir(dir, { recursive: true });
    return new SessionLog(createWriteStream(join(dir, SESSION_LOG), { flags: resume ? 'a' : 'w' }));
  }

  append(entry: LoggedSession): void {
    this.stream.write(JSON.stringify(entry) + '\n');
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}

/**
 * A logged session as a record on the clock of the run that started at `startedAt`:
 * sessions measured by an earlier run are moved by the difference of the starts.
 */
export function onClockOf(entry: LoggedSession, startedAt: string): SessionRecord {
  if (entry.startedAt === startedAt) return entry.record;
  const { record } = entry;
  return { ...record, resumedFrom: record.resumedFrom ?? entry.startedAt, timeline: shiftTimeline(record.timeline, Date.parse(entry.startedAt) - Date.parse(startedAt)) };
}

/**
 * The sessions logged in `dir`; a torn last line (a crash mid-write) is ignored. Read
 * line by line: a long run's log can outgrow the longest string V8 can hold.
 */
export async function readSessionLog(dir: string): Promise<LoggedSession[]> {
  let file: FileHandle;
  try {
    file = await open(join(dir, SESSION_LOG));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const entries: LoggedSession[] = [];
  for await (const line of file.readLines()) {
    try {
      if (line) entries.push(JSON.parse(line) as LoggedSession);
    } catch {
      // A line cut short by a crash: the session it held did not finish logging.
    }
  }
  return entries;
}
