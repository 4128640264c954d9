import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { PROBE_INTERVAL_MS, type ToProbeSender } from './stamp-probe.js';

/**
 * The probe's sender, on a thread of its own whose event loop has nothing else to do:
 * every interval while a probe runs, the time on the timeline all threads share, written
 * to the loopback socket at once (no Nagle delay). Paused between probes; it ends with
 * its process, or when the receiver closes the socket.
 */
const socket = connect({ port: (workerData as { port: number }).port, host: '127.0.0.1', noDelay: true });
const message = Buffer.alloc(8);
let timer: NodeJS.Timeout | undefined;
const pause = (): void => {
  clearInterval(timer);
  timer = undefined;
};
parentPort!.on('message', (command: ToProbeSender) => {
  if (command === 'pause') return pause();
  timer ??= setInterval(() => {
    message.writeDoubleLE(performance.timeOrigin + performance.now());
    socket.write(message);
  }, PROBE_INTERVAL_MS);
});
socket.on('close', () => (pause(), parentPort!.close()));
socket.on('error', pause);
