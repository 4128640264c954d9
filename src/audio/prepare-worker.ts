/** A thread of the audio preparation pool (prepare-pool.ts): prepares each file it is sent and transfers the samples back. */
import { parentPort } from 'node:worker_threads';
import { AudioDecodeError } from './decode.js';
import { prepareAudio } from './prepared.js';
import type { PrepareJob, PrepareReply } from './prepare-pool.js';

const port = parentPort!;
port.on('message', (job: PrepareJob) => void prepare(job));

/** Prepares one file and posts the samples, or why it could not (it never throws). */
async function prepare({ id, bytes, name, rate }: PrepareJob): Promise<void> {
  let reply: PrepareReply;
  try {
    const prepared = await prepareAudio(bytes, name, rate);
    reply = { id, prepared };
  } catch (err) {
    reply = { id, error: err instanceof AudioDecodeError ? err.reason : `cannot decode the audio (${(err as Error).message})` };
  }
  port.postMessage(reply, 'prepared' in reply ? [reply.prepared.pcm.buffer as ArrayBuffer] : []);
}
