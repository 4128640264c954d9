import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { LoadProfile } from '../load/profiles.js';
import { shiftTimeline, type SessionRecord } from '../timeline/types.js';
import { jsonPieces } from './json-pieces.js';
import { writeText } from './write-text.js';
import { gapFor } from '../runtime/sliced-work.js';

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
  /** Observed traffic (the proxy's log): the dialect the session was metered with, and the model it named, which a run's log has once in its report. */
  protocol?: string;
  model?: string;
}

/** The longest one macrotask serializes log lines before yielding (less where the gap before the next deadline is shorter). */
const SLICE_MS = 1;

/**
 * Sessions appended to `sessions.jsonl` as they end, so a run that is killed or
 * crashes keeps what it measured: `voxbench report render DIR` rebuilds the report
 * from it, and `--resume DIR` continues without repeating finished sessions.
 *
 * Sessions end while others still stream against their deadlines, so `append` only
 * queues: lines are serialized later, in slices of at most SLICE_MS that fit in the
 * gaps between the streaming sessions' deadlines (sliced-work.ts), with a macrotask
 * between them (a record is 5–20 KB for a short session, far more for a long one, and
 * many sessions end at once), and written in order, waiting whenever the file is
 * behind. `close` writes everything still queued.
 */
export class SessionLog {
  private readonly queue: LoggedSession[] = [];
  /** When each queued entry was appended (performance.now). */
  private readonly queuedAt: number[] = [];
  /** The line being serialized, where the last slice stopped, and when its entry was appended. */
  private line: Iterator<string> | undefined;
  private lineAt = 0;
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
    const stream = createWriteStream(path, { flags: resume ? 'a' : 'w' });
    // Open before the run goes on: the report written next looks for the log, and would
    // otherwise write one of its own over a file not yet created (renamed over it, the
    // sessions would go to a file no longer in the folder).
    try {
      await once(stream, 'open');
    } catch (err) {
      throw new SessionLogError(`${path}: the session log could not be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    return new SessionLog(path, stream);
  }

  /** Queues a finished session for the log; the entry must not change afterwards. */
  append(entry: LoggedSession): void {
    this.queue.push(entry);
    this.queuedAt.push(performance.now());
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
        // The chunks of sessions still streaming go first (sliced-work.ts), for as long as the oldest entry may wait.
        const until = await gapFor(SLICE_MS, this.line ? this.lineAt : this.queuedAt[0]!);
        if (this.failure) return;
        if (!this.stream.write(this.serializeSlice(until))) await once(this.stream, 'drain');
      }
    } catch (err) {
      this.failure ??= err as Error; // the stream failed while we waited for it to drain
    } finally {
      this.writing = undefined;
    }
  }

  /** Serializes queued lines until `until` (at least one piece), resuming the line the last slice left unfinished. */
  private serializeSlice(until: number): string {
    let text = '';
    do {
      if (!this.line) {
        const entry = this.queue.shift();
        if (!entry) break;
        this.lineAt = this.queuedAt.shift()!;
        this.line = jsonPieces(entry);
      }
      const piece = this.line.next();
      if (!piece.done) text += piece.value;
      else {
        text += '\n';
        this.line = undefined;
      }
    } while (performance.now() < until);
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
  return {
    ...record,
    resumedFrom: record.resumedFrom ?? entry.startedAt,
    timeline: shiftTimeline(record.timeline, Date.parse(entry.startedAt) - Date.parse(startedAt)),
  };
}

/** A session log that cannot be read back, as a file of garbage or a damaged line; the message names the file and the line. */
export class DamagedLogError extends Error {
  override name = 'DamagedLogError';
}

/**
 * The sessions logged in `dir`. A torn last line (the start of an entry with no
 * newline: a crash mid-write) is skipped, as the session it held did not finish
 * logging; any other line that is not an entry is an error, so a damaged or foreign
 * file is never taken for an empty log.
 */
export async function readSessionLog(dir: string): Promise<LoggedSession[]> {
  return (await scanSessionLog(join(dir, SESSION_LOG)))?.entries ?? [];
}

/** Where one entry lies in a session log: its file, and the bytes of its line. */
export interface LogPlace {
  file: string;
  offset: number;
  length: number;
}

/** A part of a session log: the bytes from `start` (where a line begins) up to `end`. */
export interface LogRange {
  start: number;
  end: number;
}

/**
 * The sessions logged at `path` one at a time, each with where it lies, so a reader
 * holds one entry at once (a report of 100,000 sessions renders in one pass, issue 38);
 * undefined when there is no log. Lines are checked as `readSessionLog` checks them.
 * With `range`, only the lines that begin within it (a thread's part of the log).
 */
export async function streamSessionLog(path: string, range?: LogRange): Promise<AsyncGenerator<{ entry: LoggedSession; at: LogPlace }> | undefined> {
  const file = await openIfExists(path);
  if (!file) return undefined;
  return (async function* () {
    try {
      let number = 0;
      for await (const line of lines(file, range)) {
        number++;
        if (!line.ended && line.text.startsWith('{')) return;
        if (line.text === '') continue;
        const entry = parseEntry(line.text);
        if (!entry) {
          const before = range && range.start > 0 ? await newlinesBefore(file, range.start) : 0;
          throw new DamagedLogError(
            `${path} line ${before + number} is not a voxbench session log entry; repair or remove the line (only a torn last line is skipped)`,
          );
        }
        yield { entry, at: { file: path, offset: line.start, length: line.bytes } };
      }
    } finally {
      await file.close();
    }
  })();
}

/**
 * The log at `path` (`size` bytes) cut into up to `weights.length` ranges, each about its
 * weight's share of the bytes and beginning where a line does; fewer where a line is
 * longer than a part.
 */
export async function splitSessionLog(path: string, size: number, weights: readonly number[]): Promise<LogRange[]> {
  const file = await open(path);
  try {
    const total = weights.reduce((sum, w) => sum + w, 0);
    const starts = [0];
    let before = 0;
    for (const weight of weights.slice(0, -1)) {
      before += weight;
      const from = Math.max(Math.floor((size * before) / total), starts.at(-1)!);
      const start = await lineStartFrom(file, from, size);
      if (start < size && start > starts.at(-1)!) starts.push(start);
    }
    return starts.map((start, i) => ({ start, end: starts[i + 1] ?? size }));
  } finally {
    await file.close();
  }
}

/** Where the first line beginning at or after byte `from` begins (`size` when none does). */
async function lineStartFrom(file: FileHandle, from: number, size: number): Promise<number> {
  if (from === 0) return 0;
  const buffer = Buffer.alloc(1 << 16);
  // The byte before `from` ends a line when it is a newline: a line begins at `from` then.
  for (let at = from - 1; at < size; at += buffer.length) {
    const { bytesRead } = await file.read(buffer, 0, buffer.length, at);
    const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
    if (newline !== -1) return at + newline + 1;
    if (bytesRead === 0) break;
  }
  return size;
}

/** How many newlines the file has before byte `end`: the line number of a line found at `end`, less one. */
async function newlinesBefore(file: FileHandle, end: number): Promise<number> {
  let count = 0;
  for await (const chunk of file.createReadStream({ autoClose: false, start: 0, end: end - 1, highWaterMark: READ_BYTES }) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) count++;
  }
  return count;
}

/** The entry at `at`, read back on its own (a session a chart draws). */
export async function readLoggedAt(at: LogPlace): Promise<LoggedSession> {
  const file = await open(at.file);
  try {
    const buffer = Buffer.alloc(at.length);
    await file.read(buffer, 0, at.length, at.offset);
    const entry = parseEntry(buffer.toString('utf8'));
    if (!entry) throw new DamagedLogError(`${at.file} changed since it was read: no session log entry at byte ${at.offset}; render the report again`);
    return entry;
  } finally {
    await file.close();
  }
}

/** Writes a report's sessions, with the timelines it holds, as the session log of `dir` (a merge's output). */
export async function writeSessionLog(dir: string, entries: Iterable<LoggedSession>): Promise<void> {
  await writeText(join(dir, SESSION_LOG), linesOf(entries));
}

function* linesOf(entries: Iterable<LoggedSession>): Generator<string> {
  for (const entry of entries) yield `${JSON.stringify(entry)}\n`;
}

/**
 * The sessions logged in `dir`, for a run that resumes it: a torn last line is cut
 * off, so that the first entry appended starts a line of its own instead of
 * completing the fragment into a line that is neither.
 */
export async function resumeSessionLog(dir: string): Promise<LoggedSession[]> {
  const path = join(dir, SESSION_LOG);
  const scan = await scanSessionLog(path);
  if (scan?.tornAt !== undefined) await truncate(path, scan.tornAt);
  return scan?.entries ?? [];
}

/** The entries of the log at `path` (undefined when there is none) and the offset of its torn last line, if it has one. */
async function scanSessionLog(path: string): Promise<{ entries: LoggedSession[]; tornAt?: number } | undefined> {
  const file = await openIfExists(path);
  if (!file) return undefined;
  try {
    const entries: LoggedSession[] = [];
    let number = 0;
    for await (const line of lines(file)) {
      number++;
      // The writer ends every entry with a newline: a line without one was cut short.
      if (!line.ended && line.text.startsWith('{')) return { entries, tornAt: line.start };
      if (line.text === '') continue;
      const entry = parseEntry(line.text);
      if (!entry)
        throw new DamagedLogError(`${path} line ${number} is not a voxbench session log entry; repair or remove the line (only a torn last line is skipped)`);
      entries.push(entry);
    }
    return { entries };
  } finally {
    await file.close();
  }
}

/** A line as a logged session, or undefined when it is not one. */
function parseEntry(text: string): LoggedSession | undefined {
  try {
    const entry = JSON.parse(text) as Partial<LoggedSession> | null;
    return typeof entry?.level === 'string' && typeof entry.record === 'object' && entry.record !== null ? (entry as LoggedSession) : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes read at a time: a session's line is 5-20 KB, so most lie within one read. */
const READ_BYTES = 1 << 20;

/**
 * The lines of a file with their byte offsets and whether a newline ended them, read
 * a chunk at a time: a long run's log can outgrow the longest string V8 can hold.
 * With `range`, the lines from its start up to its end.
 */
async function* lines(file: FileHandle, range?: LogRange): AsyncGenerator<{ text: string; start: number; bytes: number; ended: boolean }> {
  let pieces: Buffer[] = [];
  let start = range?.start ?? 0;
  let offset = start;
  if (range && range.end <= range.start) return;
  const bounds = range ? { start: range.start, end: range.end - 1 } : {};
  for await (const chunk of file.createReadStream({ autoClose: false, highWaterMark: READ_BYTES, ...bounds }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, from)) {
      // A line within one chunk is decoded where it lies; one across chunks is joined first.
      const text = pieces.length === 0 ? chunk.toString('utf8', from, end) : Buffer.concat([...pieces, chunk.subarray(from, end)]).toString('utf8');
      yield { text, start, bytes: offset + end - start, ended: true };
      pieces = [];
      from = end + 1;
      start = offset + from;
    }
    pieces.push(chunk.subarray(from));
    offset += chunk.length;
  }
  if (offset > start) yield { text: Buffer.concat(pieces).toString('utf8'), start, bytes: offset - start, ended: false };
}

/** The file at `path` opened for reading, or undefined when there is none. */
async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
