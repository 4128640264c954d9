import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AsyncBuffer } from 'hyparquet';
import { DatasetError } from '../errors.js';
import { writeWhole } from './cache.js';
import type { DownloadProgress } from './progress.js';

/** A remote file's bytes `[start, end)`, as they arrive. */
export type FetchRange = (start: number, end: number) => Promise<ReadableStream<Uint8Array>>;

export interface RemoteFile {
  /** How messages and the progress line name the file. */
  label: string;
  size: number;
  /** The sha256 the Hub gives for an LFS file, checked once the file is read whole. */
  sha256?: string;
  fetch: FetchRange;
  progress?: DownloadProgress;
}

/** The ranges fetched so far are recorded at least this often while a range arrives, so a cut-off download loses little. */
const RECORD_EVERY = 1 << 20;

/** A remote file read by range and kept nowhere: each slice is a request. */
export function uncachedFile(file: RemoteFile): AsyncBuffer {
  return {
    byteLength: file.size,
    slice: async (start, end = file.size) => {
      const bytes = new Uint8Array(end - start);
      let at = 0;
      await receive(file, start, end, (chunk) => {
        bytes.set(chunk, at);
        at += chunk.length;
      });
      return bytes.buffer;
    },
  };
}

/**
 * A remote file read by range through a file on disk at `path`: the bytes of each slice
 * not fetched before are fetched and written into `<path>.partial`, their ranges recorded
 * in `<path>.partial.json`, so a later run (or one after an interruption) fetches only
 * what it lacks. Each range is checked against the file's size; once every byte is
 * there the file is checked whole (size, and sha256 when the Hub gives one) and renamed
 * to `path`. Offline, a slice that needs bytes not yet fetched is an error.
 */
export async function cachedFile(file: RemoteFile, path: string, offline: boolean): Promise<AsyncBuffer> {
  const whole = await stat(path).catch(() => undefined);
  if (whole?.size === file.size) return { byteLength: file.size, slice: (start, end = file.size) => readRange(path, start, end) };
  const partial = new PartialFile(file, path, offline);
  // One slice at a time: slices of one file share its record of ranges.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    byteLength: file.size,
    slice: (start, end = file.size) => {
      const next = queue.then(() => partial.slice(start, end));
      queue = next.catch(() => {});
      return next;
    },
  };
}

class PartialFile {
  private ranges: Array<[number, number]> | undefined;
  private complete = false;
  constructor(
    private readonly file: RemoteFile,
    private readonly path: string,
    private readonly offline: boolean,
  ) {}

  private get data(): string {
    return `${this.path}.partial`;
  }

  private get record(): string {
    return `${this.path}.partial.json`;
  }

  async slice(start: number, end: number): Promise<ArrayBuffer> {
    if (this.complete) return readRange(this.path, start, end);
    const ranges = (this.ranges ??= await this.load());
    const gaps = missing(ranges, start, end);
    if (gaps.length > 0 && this.offline) {
      throw new DatasetError(
        `HF_HUB_OFFLINE=1: ${this.file.label} is cached only in part, and this run reads bytes it lacks; run once with the network to fetch them`,
      );
    }
    for (const [from, to] of gaps) await this.fetch(from, to);
    const bytes = await readRange(this.data, start, end);
    if (covered(ranges, 0, this.file.size)) await this.finish();
    return bytes;
  }

  /** The ranges recorded, kept only as far as the data file holds them (a crash between the two drops the rest). */
  private async load(): Promise<Array<[number, number]>> {
    const recorded = await readFile(this.record, 'utf8').catch(() => undefined);
    const length = (await stat(this.data).catch(() => undefined))?.size ?? 0;
    if (recorded === undefined) return [];
    const { size, ranges } = JSON.parse(recorded) as { size: number; ranges: Array<[number, number]> };
    return size === this.file.size ? ranges.filter(([, to]) => to <= length) : [];
  }

  private async fetch(from: number, to: number): Promise<void> {
    await mkdir(dirname(this.data), { recursive: true });
    // Written in place at each range's offset: `r+`, or a new file the first time.
    const handle = await open(this.data, 'r+').catch(() => open(this.data, 'w+'));
    let at = from;
    let recordedAt = from;
    try {
      await receive(this.file, from, to, async (chunk) => {
        await handle.write(chunk, 0, chunk.length, at);
        at += chunk.length;
        if (at - recordedAt >= RECORD_EVERY) {
          add(this.ranges!, from, at);
          recordedAt = at;
          await this.save();
        }
      });
    } finally {
      await handle.close();
      // What arrived before a cut is kept: the next run asks only for the rest.
      if (at > from) {
        add(this.ranges!, from, at);
        await this.save();
      }
    }
  }

  private async save(): Promise<void> {
    await writeWhole(this.record, JSON.stringify({ size: this.file.size, ranges: this.ranges }));
  }

  /** Every byte is there: check the file whole, then keep it as read whole. */
  private async finish(): Promise<void> {
    const size = (await stat(this.data)).size;
    const sha256 = this.file.sha256 === undefined ? undefined : await fileSha256(this.data);
    if (size !== this.file.size || (sha256 !== undefined && sha256 !== this.file.sha256)) {
      await rm(this.data, { force: true });
      await rm(this.record, { force: true });
      this.ranges = [];
      throw new DatasetError(
        `${this.file.label}: the downloaded file does not match the Hub's ${size !== this.file.size ? `size (${size} bytes, not ${this.file.size})` : 'sha256'}; it was removed from the cache, run again to download it anew`,
      );
    }
    await rename(this.data, this.path);
    await rm(this.record, { force: true });
    this.complete = true;
  }
}

/** Fetches `[start, end)` and hands each chunk to `take` as it arrives; fewer bytes than asked for, or more, is an error. */
async function receive(file: RemoteFile, start: number, end: number, take: (chunk: Uint8Array) => unknown): Promise<void> {
  let got = 0;
  const progress = file.progress?.start(file.label, end - start);
  try {
    const reader = (await file.fetch(start, end)).getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      if (got + read.value.length > end - start) throw new Error(`more bytes than the ${end - start} asked for`);
      await take(read.value);
      got += read.value.length;
      progress?.advance(read.value.length);
    }
  } catch (err) {
    if (err instanceof DatasetError) throw err;
    // The client's blob stream errors with the message of what went wrong, not always an Error.
    const why = err instanceof Error ? err.message : String(err);
    throw new DatasetError(`${file.label}: the download was cut off after ${got} of ${end - start} bytes (${why}); what arrived is kept, run again to resume`);
  } finally {
    progress?.end();
  }
  if (got !== end - start) {
    throw new DatasetError(`${file.label}: the download was cut off after ${got} of ${end - start} bytes; what arrived is kept, run again to resume`);
  }
}

async function readRange(path: string, start: number, end: number): Promise<ArrayBuffer> {
  const handle = await open(path, 'r');
  try {
    const bytes = new Uint8Array(end - start);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, start);
    if (bytesRead !== bytes.length) throw new Error(`${path}: read ${bytesRead} of ${bytes.length} bytes at ${start}`);
    return bytes.buffer;
  } finally {
    await handle.close();
  }
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The parts of `[start, end)` that `ranges` (sorted, apart) leave out. */
function missing(ranges: Array<[number, number]>, start: number, end: number): Array<[number, number]> {
  const gaps: Array<[number, number]> = [];
  let at = start;
  for (const [from, to] of ranges) {
    if (to <= at) continue;
    if (from >= end) break;
    if (from > at) gaps.push([at, from]);
    at = Math.max(at, to);
  }
  if (at < end) gaps.push([at, end]);
  return gaps;
}

const covered = (ranges: Array<[number, number]>, start: number, end: number): boolean => missing(ranges, start, end).length === 0;

/** Adds `[from, to)` to `ranges`, merging those it touches, kept sorted. */
function add(ranges: Array<[number, number]>, from: number, to: number): void {
  const merged: Array<[number, number]> = [];
  let next: [number, number] = [from, to];
  for (const range of ranges) {
    if (range[1] < next[0] || range[0] > next[1]) merged.push(range);
    else next = [Math.min(range[0], next[0]), Math.max(range[1], next[1])];
  }
  merged.push(next);
  ranges.splice(0, ranges.length, ...merged.sort((a, b) => a[0] - b[0]));
}
