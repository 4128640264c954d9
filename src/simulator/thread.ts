import { Worker } from 'node:worker_threads';
import type { Sample } from '../data/dataset.js';
import type { ServerOptions } from '../server/server.js';
import type { FromServerThread, ToServerThread } from './thread-worker.js';

/** The built-in server running on its own thread. */
export interface ServerThread {
  /** `ws://host:port/v1/realtime` (`wss://` with TLS) */
  url: string;
  /** `http://host:port` (`https://` with TLS), for HTTP dialects. */
  origin: string;
  /** Ends the thread, and with it every connection; rejects if the server crashed while it ran. */
  close(): Promise<void>;
}

/**
 * Starts the simulated server (server.ts) on a worker thread, so that its work
 * (recognizing audio, timing and framing emissions) never runs on the calling
 * thread's event loop, where a benchmark client keeps its chunk deadlines.
 */
export async function startServerThread(options: Partial<ServerOptions> = {}): Promise<ServerThread> {
  const worker = new Worker(new URL('./thread-worker.js', import.meta.url));
  let crash: Error | undefined;
  worker.on('error', (err) => (crash ??= err));
  const references = (options.references ?? []).map(withOwnAudio);
  const listening = reply(worker, 'listening');
  const start: ToServerThread = { type: 'start', options: { ...options, references } };
  worker.postMessage(
    start,
    references.map((sample) => sample.audio.samples.buffer),
  );
  try {
    const { url, origin } = await listening;
    return {
      url,
      origin,
      close: async () => {
        await worker.terminate();
        if (crash) throw new Error(`the built-in server crashed: ${crash.message}`);
      },
    };
  } catch (err) {
    await worker.terminate();
    throw new Error(`the built-in server did not start: ${(err as Error).message}`);
  }
}

/**
 * The sample with a copy of its audio in a buffer of its own, to transfer to the
 * thread: one copy of exactly its samples, and the caller keeps its audio (a
 * structured clone would copy a view's whole underlying buffer).
 */
function withOwnAudio({ file: _file, ...sample }: Sample): Sample & { audio: { samples: Float32Array<ArrayBuffer> } } {
  return { ...sample, audio: { sampleRate: sample.audio.sampleRate, samples: sample.audio.samples.slice() } };
}

/** The thread's next message of `type`; rejects on its error message, its crash, or its exit. */
function reply<T extends FromServerThread['type']>(worker: Worker, type: T): Promise<Extract<FromServerThread, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromServerThread): void => {
      if (message.type === 'error') finish(() => reject(new Error(message.message)));
      else if (message.type === type) finish(() => resolve(message as Extract<FromServerThread, { type: T }>));
    };
    const onError = (err: Error): void => finish(() => reject(err));
    const onExit = (code: number): void => finish(() => reject(new Error(`its thread exited with code ${code}`)));
    const finish = (settle: () => void): void => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      settle();
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}
