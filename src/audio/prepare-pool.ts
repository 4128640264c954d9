import { Worker } from 'node:worker_threads';
import { AudioDecodeError } from './decode.js';
import type { PreparedAudio } from './prepared.js';

export interface PrepareJob {
  id: number;
  bytes: Uint8Array;
  name: string;
  rate: number;
}

/** A file's prepared audio, or why it cannot be used (the reason an AudioDecodeError gives). */
export type PrepareReply = { id: number; prepared: PreparedAudio } | { id: number; error: string };

interface Pending {
  resolve(prepared: PreparedAudio): void;
  reject(err: Error): void;
}

/**
 * Worker threads that prepare files in parallel (decode, resample, quantise: see
 * prepared.ts), started on first use, up to `size`; each takes the next queued file
 * when it finishes one. Files go in as copies, samples come back transferred. A
 * file that cannot be used rejects with AudioDecodeError and the pool goes on; a
 * thread that dies rejects its file and is replaced on demand.
 */
export class PreparePool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, number>();
  private readonly queue: Array<PrepareJob & { transfer: ArrayBuffer }> = [];
  private readonly pending = new Map<number, Pending & { name: string }>();
  private nextId = 0;

  constructor(readonly size: number) {}

  prepare(bytes: Uint8Array, name: string, rate: number): Promise<PreparedAudio> {
    // A copy of just these bytes, moved to the thread: the caller keeps its own (which
    // may be a view of a whole Parquet row group). Not `slice`, which on a Buffer is a view.
    const own = new Uint8Array(bytes);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, name });
      this.queue.push({ id, bytes: own, name, rate, transfer: own.buffer });
      this.dispatch();
    });
  }

  /** Stops the threads; files still queued or in progress reject. */
  async close(): Promise<void> {
    const workers = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    this.queue.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
    for (const [id, job] of this.pending) {
      this.pending.delete(id);
      job.reject(new Error('the audio preparation pool was closed'));
    }
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.busy.size < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const { transfer, ...job } = this.queue.shift()!;
      try {
        worker.postMessage(job, [transfer]);
      } catch (err) {
        // A file that cannot be posted fails alone; the thread stays free for the next.
        this.idle.push(worker);
        this.settle(job.id, (pending) => pending.reject(err as Error));
        continue;
      }
      this.busy.set(worker, job.id);
    }
  }

  private settle(id: number, how: (job: Pending & { name: string }) => void): void {
    const job = this.pending.get(id);
    this.pending.delete(id);
    if (job) how(job);
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./prepare-worker.js', import.meta.url));
    worker.on('message', (reply: PrepareReply) => {
      this.busy.delete(worker);
      this.idle.push(worker);
      this.settle(reply.id, (job) => ('prepared' in reply ? job.resolve(reply.prepared) : job.reject(new AudioDecodeError(job.name, reply.error))));
      this.dispatch();
    });
    const lost = (err: Error): void => {
      const id = this.busy.get(worker);
      this.busy.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      if (id !== undefined) this.settle(id, (job) => job.reject(err));
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the audio preparation thread stopped (exit code ${code})`)));
    return worker;
  }
}
