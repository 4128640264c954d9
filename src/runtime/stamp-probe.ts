import { createServer } from 'node:net';
import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { NO_DELAY, type DelaySummary } from './delay.js';

export const PROBE_INTERVAL_MS = 10;

/** What the main thread tells the probe's sender. */
export type ToProbeSender = 'send' | 'pause';

export interface StampProbe {
  /** Messages stamped so far. */
  readonly received: number;
  /** Stops the probe: the delays it measured (zeros when none arrived). */
  stop(): Promise<DelaySummary>;
}

/** The sender thread and its socket, shared by this thread's probes: one thread start, not one a level. */
interface Sender {
  worker: Worker;
  /** The histograms of the probes now running; each message's delay goes into all of them. */
  probes: Set<RecordableHistogram>;
}

let sender: Promise<Sender> | undefined;

/**
 * A loopback probe of the receive-stamp delay: how long a frame that has reached this
 * machine waits before this thread stamps it. A worker thread, whose event loop is idle,
 * writes the time to a loopback TCP socket every 10 ms while a probe runs; this thread
 * stamps each message as the runners stamp a received frame (first thing in the data
 * handler) and records the difference: the delay the kernel and this event loop add to
 * every receive stamp taken meanwhile. The thread is started by the first probe and kept,
 * paused, for the next (a sweep's levels, or the runs of one process); neither it nor its
 * socket keeps the process alive.
 */
export async function startStampProbe(): Promise<StampProbe> {
  const shared = await (sender ??= startSender().catch((err: unknown) => {
    sender = undefined;
    throw err;
  }));
  const delays = createHistogram();
  shared.probes.add(delays);
  if (shared.probes.size === 1) shared.worker.postMessage('send' satisfies ToProbeSender);
  return {
    get received() {
      return delays.count;
    },
    stop() {
      if (shared.probes.delete(delays) && shared.probes.size === 0) shared.worker.postMessage('pause' satisfies ToProbeSender);
      const ms = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);
      return Promise.resolve(
        delays.count === 0 ? NO_DELAY : { meanMs: ms(delays.mean), p50Ms: ms(delays.percentile(50)), p99Ms: ms(delays.percentile(99)), maxMs: ms(delays.max) },
      );
    },
  };
}

/** Starts the sender thread; once it connects, each message it sends is stamped into the running probes. */
async function startSender(): Promise<Sender> {
  const probes = new Set<RecordableHistogram>();
  let pending: Buffer = Buffer.alloc(0);
  const server = createServer((socket) => {
    server.close(); // one sender, one connection
    socket.unref();
    socket.on('data', (data: Buffer) => {
      const now = performance.timeOrigin + performance.now();
      pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
      let at = 0;
      for (; at + 8 <= pending.length; at += 8) {
        const delay = Math.max(1, Math.round((now - pending.readDoubleLE(at)) * 1e6));
        for (const probe of probes) probe.record(delay);
      }
      pending = pending.subarray(at);
    });
    socket.on('error', () => {});
  });
  server.unref();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const worker = new Worker(new URL('./stamp-probe-worker.js', import.meta.url), { workerData: { port: (server.address() as { port: number }).port } });
  worker.unref();
  // A sender that failed or ended measures nothing more: the next probe starts another.
  worker.on('error', () => {});
  worker.once('exit', () => (sender = undefined));
  return { worker, probes };
}
