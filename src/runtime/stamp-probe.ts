import { createServer, type Socket } from 'node:net';
import { createHistogram, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { NO_DELAY, type DelaySummary } from './delay.js';

export const PROBE_INTERVAL_MS = 10;

export interface StampProbe {
  /** Messages stamped so far. */
  readonly received: number;
  /** The delays measured since the probe started or was last taken (zeros when none arrived), and a fresh count from here. */
  take(): DelaySummary;
  /** Stops the probe: the delays measured since it was last taken. */
  stop(): Promise<DelaySummary>;
}

/**
 * A loopback probe of the receive-stamp delay: how long a frame that has reached this
 * machine waits before this thread stamps it. A worker thread, whose event loop is idle,
 * writes the time to a loopback TCP socket as it starts and every 10 ms; this thread stamps each message
 * as the runners stamp a received frame (first thing in the data handler) and records
 * the difference: the delay the kernel and this event loop add to every receive stamp
 * taken meanwhile.
 */
export async function startStampProbe(): Promise<StampProbe> {
  const delays = createHistogram();
  let pending: Buffer = Buffer.alloc(0);
  let socket: Socket | undefined;
  let started = (): void => {};
  const server = createServer((s) => {
    socket = s;
    s.on('data', (data: Buffer) => {
      const now = performance.timeOrigin + performance.now();
      pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
      let at = 0;
      for (; at + 8 <= pending.length; at += 8) delays.record(Math.max(1, Math.round((now - pending.readDoubleLE(at)) * 1e6)));
      pending = pending.subarray(at);
      if (delays.count > 0) started();
    });
    s.on('error', () => {});
  });
  // Neither the listener nor the probe's socket keeps the process alive.
  server.unref();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const worker = new Worker(new URL('./stamp-probe-worker.js', import.meta.url), { workerData: { port: (server.address() as { port: number }).port } });
  // Resolves once the worker's first message is in: its start (an isolate of its own,
  // Node's bootstrap, its module: 40-100 ms of CPU) is then over, and cannot take the core
  // from a level's first receive stamps (BENCHMARKS.md, speech out at scale): a run starts
  // its thread's probe before its first level and takes it level by level (execute.ts).
  // Ref'd until then: nothing else may keep the process alive yet.
  await new Promise<void>((resolve) => {
    started = resolve;
    worker.once('error', () => resolve()); // no probe: stop() says nothing was measured
    worker.once('exit', () => resolve());
  });
  worker.unref();
  let received = 0;
  const take = (): DelaySummary => {
    const ms = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);
    received += delays.count;
    const summary =
      delays.count === 0 ? NO_DELAY : { meanMs: ms(delays.mean), p50Ms: ms(delays.percentile(50)), p99Ms: ms(delays.percentile(99)), maxMs: ms(delays.max) };
    delays.reset();
    return summary;
  };
  return {
    get received() {
      return received + delays.count;
    },
    take,
    async stop() {
      socket?.destroy();
      server.close();
      await worker.terminate();
      return take();
    },
  };
}
