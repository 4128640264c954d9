import { availableParallelism } from 'node:os';
import { decodeAudio, type MonoAudio } from './decode.js';
import { PreparePool } from './prepare-pool.js';
import { prepareAudio, preparedMono, type PreparedAudio } from './prepared.js';
import type { PreparedAudioCache } from './prepared-cache.js';

/** How a dataset loader turns a file's bytes into a sample's audio. */
export interface AudioReader {
  /** Files worth reading at once: the loader keeps this many in flight. */
  readonly parallel: number;
  /** `digest` is the sha256 of `bytes`; `sourceRate` the file's own rate when the audio comes at another. Throws AudioDecodeError. */
  read(bytes: Uint8Array, name: string, digest: string): Promise<{ audio: MonoAudio; sourceRate?: number }>;
  /** Lets go of what reading held (threads). */
  close(): Promise<void>;
}

/** Each file decoded at its own rate, in this thread: what `loadDataset` does unless told otherwise. */
export const DECODE_IN_THREAD: AudioReader = { parallel: 1, read: async (bytes, name) => ({ audio: await decodeAudio(bytes, name) }), close: async () => {} };

/**
 * Files prepared as a run sends them (mono PCM16 at `rate`, see prepared.ts): read
 * from `cache` when it holds them, else prepared and written to it. Files are
 * prepared in this thread until that has taken 0.2 s; from then on a pool of `threads`
 * worker threads prepares the rest in parallel (starting threads pays only for a
 * dataset that takes that long).
 */
export function preparedAudioReader(rate: number, options: { cache?: PreparedAudioCache; threads?: number; poolAfterMs?: number } = {}): AudioReader {
  const threads = options.threads ?? availableParallelism();
  let spentMs = 0;
  let pool: PreparePool | undefined;
  const prepare = async (bytes: Uint8Array, name: string): Promise<PreparedAudio> => {
    if (threads > 1 && spentMs >= (options.poolAfterMs ?? POOL_AFTER_MS)) return (pool ??= new PreparePool(threads)).prepare(bytes, name, rate);
    const start = performance.now();
    try {
      return await prepareAudio(bytes, name, rate);
    } finally {
      spentMs += performance.now() - start;
    }
  };
  return {
    parallel: threads > 1 ? 2 * threads : 1,
    async read(bytes, name, digest) {
      let audio = await options.cache?.get(digest, rate);
      if (!audio) {
        audio = await prepare(bytes, name);
        // A cache that cannot be written costs the next run time, not this run its sample.
        await options.cache?.put(digest, audio).catch(() => {});
      }
      return { audio: preparedMono(audio), sourceRate: audio.sourceRate };
    },
    close: async () => pool?.close(),
  };
}

/** Preparing this long in this thread starts the pool (a thread takes about 70 ms to start): a few short files never start one. */
const POOL_AFTER_MS = 200;
