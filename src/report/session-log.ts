import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { LoadProfile } from '../load/profiles.js';
import { shiftTimeline, type SessionRecord } from '../timeline/types.js';
import { jsonPieces } from './json-pieces.js';

export const SESSION_LOG = 'sessions.jsonl';

/** The session log could not be written (a full disk, a folder removed during the run); the message names the file. */
export class SessionLogError extends Error {
  override name = 'SessionLogError';
}

/** One line of the session log: a finished session and the benchmark level it belongs to. */
export interface LoggedSession {
  level: string;
  profile: LoadProfile;
  /** The start of the run that measured it: its times are on that run's clock. */
  startedAt: string;
  record: SessionRecord;
}

/**
 * How long one macrotask serializes log lines before yielding: chunk timers that fall
 * due meanwhile run at most about this late.
 */
const SLICE_MS = 1;

/**
 * Sessions appended to `sessions.jsonl` as they end, so a run that is killed or
 * crashes keeps what it measured: `voxbench report render DIR` rebuilds the report
 * from it, and `--resume DIR` continues without repeating finished sessions.
 *
 * Sessions end while others still stream against their deadlines, so `append` only
 * queues: lines are serialized later, in slices of about SLICE_MS with a macrotask
 * between them (a record is 5–20 KB for a short session, far more for a long one, and
 * many sessions end at once), and written in order, waiting whenever the file is
 * behind. `close` writes everything still queued.
 */
export class SessionLog {
  private readonly queue: LoggedSession[] = [];
  /** The line being serialized, where the last slice stopped. */
  private line: Iterator<string> | undefined;
  private writing: Promise<void> | undefined;
  private failure: Error | undefined;

  private constructor(
    private readonly path: string,
    private readonly stream: WriteStream,
  ) {
    stream.on('error', (err) => (this.failure ??= err));
  }

  /** A new log, or with `resume` the folder's log continued. */
  static async open(dir: string, resume: boolean): Promise<SessionLog> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, SESSION_LOG);
    return new SessionLog(path, createWriteStream(path, { flags: resume ? 'a' : 'w' }));
  }

  /** Queues a finished session for the log; the entry must not change afterwards. */
  append(entry: LoggedSession): void {
    this.queue.push(entry);
    this.writing ??= this.writeQueued();
  }

  /** Writes every queued session, then closes the file; rejects with a SessionLogError if the file could not be written. */
  async close(): Promise<void> {
    await this.writing;
    await new Promise((resolve) => this.stream.end(resolve));
    if (this.failure) {
      const why = (this.failure as NodeJS.ErrnoException).code ?? this.failure.message;
      throw new SessionLogError(`${this.path}: the session log could not be written (${why})`);
    }
  }

  private async writeQueued(): Promise<void> {
    try {
      while (this.line || this.queue.length > 0) {
        await setImmediate(); // off the caller's callback, and lets due timers and I/O run between slices
        if (this.failure) return;
        if (!this.stream.write(this.serializeSlice())) await once(this.stream, 'drain');
      }
    } catch (err) {
      this.failure ??= err as Error; // the stream failed while we waited for it to drain
    } finally {
      this.writing = undefined;
    }
  }

  /** Serializes queued lines for about SLICE_MS, resuming the line the last slice left unfinished. */
  private serializeSlice(): string {
    const until = performance.now() + SLICE_MS;
    let text = '';
    while (performance.now() < until) {
      if (!this.line) {
        const entry = this.queue.shift();
        if (!entry) break;
        this.line = jsonPieces(entry);
      }
      const piece = this.line.next();
      if (!piece.done) text += piece.value;
      else {
        text += '\n';
        this.line = undefined;
      }
    }
    return text;
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
