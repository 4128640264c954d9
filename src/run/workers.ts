import { Worker } from 'node:worker_threads';
import type { Clock } from '../runtime/clock.js';
import type { RunOptions } from '../config/options.js';
import type { SessionRecord } from '../timeline/types.js';
import type { Execution } from './execute.js';
import type { LoadProfile } from '../load/profiles.js';
import type { FromWorker, ToWorker, WorkerInit } from './worker.js';
import { worstDelay } from '../runtime/delay.js';
import { newChannelClaims } from '../session/channel-claims.js';

/** How far ahead of the run message the workers' common level start is: time to receive it (each worker's probe runs from its start). */
const LEVEL_START_MS = 50;
/** How far ahead of the stream message the workers' lanes begin streaming: time for every worker to receive it. */
const STREAM_START_MS = 20;

/**
 * Worker threads that run a benchmark together (`--workers`). Each runs its share of
 * the sessions (see shards.ts) on the main thread's clock, so their records merge
 * exactly: one timeline per session, on one clock. The event-loop delay reported is
 * the worst of the workers'.
 */
export class WorkerPool {
  private constructor(
    private readonly workers: Worker[],
    private readonly clock: Clock,
  ) {}

  static async start(count: number, options: RunOptions, target: string, clock: Clock): Promise<WorkerPool> {
    // The signal, the built-in server's settings and the callbacks stay on this thread.
    const { signal: _s, server: _v, ...rest } = options;
    const portable = Object.fromEntries(Object.entries(rest).filter(([, value]) => typeof value !== 'function')) as RunOptions;
    const channelClaims = newChannelClaims();
    const workers = Array.from({ length: count }, (_, worker) => {
      const init: WorkerInit = {
        options: portable,
        target,
        worker,
        count,
        clockOrigin: clock.origin,
        wallStart: clock.wallStart.toISOString(),
        channelClaims,
      };
      return new Worker(new URL('./worker.js', import.meta.url), { workerData: init });
    });
    const pool = new WorkerPool(workers, clock);
    try {
      await Promise.all(workers.map((w) => pool.next(w, 'ready')));
    } catch (err) {
      await pool.close();
      throw err;
    }
    return pool;
  }

  /** Runs one benchmark level across the workers (`skip`: sessions a resumed run already has). */
  async runLevel(
    profile: LoadProfile,
    maxSessions: number,
    skip: number[],
    signal: AbortSignal | undefined,
    onSessionStart: () => void,
    onSessionEnd: (record: SessionRecord) => void,
  ): Promise<Execution> {
    const records: SessionRecord[] = [];
    // The connect phase ends once every worker is connected (or done: it had no lane, or the phase was not needed).
    const connecting = new Set(this.workers);
    const collect = (worker: Worker, message: FromWorker): void => {
      if ((message.type === 'connected' || message.type === 'done') && connecting.delete(worker) && connecting.size === 0)
        this.broadcast({ type: 'stream', atMs: this.clock.now() + STREAM_START_MS });
      if (message.type === 'started') onSessionStart();
      if (message.type !== 'record') return;
      records.push(message.record);
      onSessionEnd(message.record);
    };
    const abort = (): void => this.broadcast({ type: 'abort', reason: String(signal!.reason ?? 'interrupted') });
    signal?.addEventListener('abort', abort, { once: true });
    const listeners = new Map(this.workers.map((w) => [w, (message: FromWorker) => collect(w, message)]));
    for (const [w, listener] of listeners) w.on('message', listener);
    try {
      const done = this.workers.map((w) => this.next(w, 'done'));
      this.broadcast({ type: 'run', profile, maxSessions, skip, startAtMs: this.clock.now() + LEVEL_START_MS });
      const parts = (await Promise.all(done)).map((m) => (m as Extract<FromWorker, { type: 'done' }>).execution);
      const stoppedBy = parts.find((p) => p.stoppedBy)?.stoppedBy;
      return {
        records: records.sort((a, b) => a.index - b.index),
        startMs: Math.min(...parts.map((p) => p.startMs)),
        endMs: Math.max(...parts.map((p) => p.endMs)),
        ...(stoppedBy ? { stoppedBy } : {}),
        capHits: parts.reduce((sum, p) => sum + p.capHits, 0),
        eventLoopDelay: worstDelay(parts.map((p) => p.eventLoopDelay)),
        receiveDelay: worstDelay(parts.map((p) => p.receiveDelay)),
      };
    } finally {
      for (const [w, listener] of listeners) w.off('message', listener);
      signal?.removeEventListener('abort', abort);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private broadcast(message: ToWorker): void {
    for (const w of this.workers) w.postMessage(message);
  }

  /** The worker's next message of `type`; rejects on its error message or its crash. */
  private next(worker: Worker, type: FromWorker['type']): Promise<FromWorker> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: FromWorker): void => {
        if (message.type === 'error') finish(() => reject(new Error(message.message)));
        else if (message.type === type) finish(() => resolve(message));
      };
      const onError = (err: Error): void => finish(() => reject(err));
      const finish = (settle: () => void): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        settle();
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
    });
  }
}
