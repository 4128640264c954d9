import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { workerData } from 'node:worker_threads';
import { PROBE_INTERVAL_MS } from './stamp-probe.js';

/**
 * The probe's sender, on a thread of its own whose event loop has nothing else to do:
 * at its start and every interval, the time on the timeline all threads share, written to
 * the loopback socket at once (no Nagle delay). It ends when the receiver closes the socket.
 */
const socket = connect({ port: (workerData as { port: number }).port, host: '127.0.0.1', noDelay: true });
const message = Buffer.alloc(8);
const send = (): void => {
  message.writeDoubleLE(performance.timeOrigin + performance.now());
  socket.write(message);
};
// The first at once: it tells the probe this thread has started (stamp-probe.ts waits for it).
send();
const timer = setInterval(send, PROBE_INTERVAL_MS);
socket.on('close', () => clearInterval(timer));
socket.on('error', () => clearInterval(timer));
