import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { VERSION } from '../util/version.js';
import type { PreparedAudio } from './prepared.js';
import { RESAMPLER } from './resample.js';

/**
 * Prepared audio on disk, one file per source file and rate, named by a hash of the
 * source bytes' sha256, the rate, the resampler and voxbench's version (a new version
 * prepares again). An entry is a 20-byte header (magic, source rate, rate, frames,
 * CRC-32 of the samples) and the 16-bit samples: 32 KB per second of audio at 16 kHz,
 * about 115 MB per hour. Nothing is ever evicted; clearing the folder is always safe.
 */
export class PreparedAudioCache {
  constructor(readonly dir: string) {}

  /** The entry, or null when there is none or it does not check out (it is then rewritten by `put`). */
  async get(digest: string, rate: number): Promise<PreparedAudio | null> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.path(digest, rate));
    } catch {
      return null;
    }
    if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MAGIC || bytes.readUInt32LE(8) !== rate) return null;
    const frames = bytes.readUInt32LE(12);
    if (bytes.length !== HEADER + frames * 2 || crc32(bytes.subarray(HEADER)) !== bytes.readUInt32LE(16)) return null;
    // A fresh read is its own allocation, so the samples view it in place unless its offset is odd.
    const body = bytes.byteOffset % 2 === 0 ? bytes : Buffer.from(bytes);
    return { pcm: new Int16Array(body.buffer, body.byteOffset + HEADER, frames), rate, sourceRate: bytes.readUInt32LE(4) };
  }

  /** Writes the entry whole or not at all (a temporary file renamed into place), so a crash or a concurrent run never leaves half of one. */
  async put(digest: string, prepared: PreparedAudio): Promise<void> {
    const samples = Buffer.from(prepared.pcm.buffer, prepared.pcm.byteOffset, prepared.pcm.byteLength);
    const header = Buffer.alloc(HEADER);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(prepared.sourceRate, 4);
    header.writeUInt32LE(prepared.rate, 8);
    header.writeUInt32LE(prepared.pcm.length, 12);
    header.writeUInt32LE(crc32(samples), 16);
    const path = this.path(digest, prepared.rate);
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await mkdir(this.dir, { recursive: true });
    try {
      await writeFile(temporary, Buffer.concat([header, samples]));
      await rename(temporary, path);
    } catch (err) {
      await unlink(temporary).catch(() => {});
      throw err;
    }
  }

  /** How many entries (and temporary files a crash left) the folder holds, and their bytes. */
  async size(): Promise<{ files: number; bytes: number }> {
    const files = await this.files();
    const sizes = await Promise.all(files.map(async (f) => (await stat(f).catch(() => ({ size: 0 }))).size));
    return { files: files.length, bytes: sizes.reduce((a, b) => a + b, 0) };
  }

  /** Removes the entries and temporary files, nothing else: a folder given by mistake loses no other file. */
  async clear(): Promise<{ files: number; bytes: number }> {
    const before = await this.size();
    await Promise.all((await this.files()).map((f) => unlink(f).catch(() => {})));
    return before;
  }

  private async files(): Promise<string[]> {
    const names = await readdir(this.dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    return names.filter((n) => ENTRY_NAME.test(n)).map((n) => join(this.dir, n));
  }

  private path(digest: string, rate: number): string {
    return join(this.dir, `${createHash('sha256').update(`${VERSION}\0${RESAMPLER}\0${rate}\0${digest}`).digest('hex')}.pcm`);
  }
}

const MAGIC = 0x31415856; // 'VXA1'
const HEADER = 20;
/** An entry, or a temporary file of one. */
const ENTRY_NAME = /^[0-9a-f]{64}\.pcm(\.[0-9a-f]{12}\.tmp)?$/;

/** Names the cache folder when none is given, or `off` for none: how tests keep out of the user's cache. */
const CACHE_ENV = 'VOXBENCH_AUDIO_CACHE';

/**
 * The cache folder when none is given: `$VOXBENCH_AUDIO_CACHE` (none when it is `off`),
 * else `$XDG_CACHE_HOME/voxbench/audio`, else `~/.cache/voxbench/audio`.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env[CACHE_ENV];
  if (given === 'off') return undefined;
  if (given) return given;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'voxbench', 'audio');
}
