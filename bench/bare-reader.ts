/**
 * The ceiling for the speech-out scale bench: a client that opens the same streams as
 * voxbench (started over the same ramp) and only stamps each arrival, doing nothing
 * else; the loopback probe measures its receive-stamp delay as it does voxbench's.
 *
 *   node dist/bench/bare-reader.js <url> <sse|ws> <sessions> <rampMs>
 *       # prints one JSON line: {completed, sessions, events, receiveDelay, rssMb}
 */
import http from 'node:http';
import WebSocket from 'ws';
import { startStampProbe } from '../src/runtime/stamp-probe.js';

const [url = '', dialect, sessionsArg, rampArg] = process.argv.slice(2);
const SESSIONS = Number(sessionsArg);
const RAMP_MS = Number(rampArg ?? 1000);
const TEXT = 'The birch canoe slid on the smooth planks.';

let events = 0;
let stamp = 0;
/** Each arrival's stamp is kept, as a reader must to make a figure of it. */
const stamps = new Float64Array(SESSIONS * 256);
const arrive = (): void => {
  stamps[stamp++ % stamps.length] = performance.now();
  events++;
};

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const body = JSON.stringify({ model: 'm', input: TEXT, response_format: 'pcm', stream: true, stream_format: 'sse' });

function sse(): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request(`${url}/v1/audio/speech`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.on('data', arrive);
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

function ws(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/audio/speech/stream`, { perMessageDeflate: false });
    socket.on('open', () => {
      socket.send(JSON.stringify({ type: 'session.config', model: 'm', response_format: 'pcm', stream_audio: true }));
      socket.send(JSON.stringify({ type: 'input.text', text: TEXT }));
      socket.send(JSON.stringify({ type: 'input.done' }));
    });
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      arrive();
      if (!isBinary && data.includes('"session.done"')) {
        socket.close();
        resolve(true);
      }
    });
    socket.on('error', () => resolve(false));
  });
}

const probe = await startStampProbe();
let rssMb = 0;
const rss = setInterval(() => (rssMb = Math.max(rssMb, process.memoryUsage.rss() / 2 ** 20)), 100);
const open = dialect === 'ws' ? ws : sse;
const done = await Promise.all(
  Array.from({ length: SESSIONS }, (_, k) => new Promise<boolean>((resolve) => setTimeout(() => void open().then(resolve), (k * RAMP_MS) / SESSIONS))),
);
clearInterval(rss);
const receiveDelay = await probe.stop();
agent.destroy();
process.stdout.write(`${JSON.stringify({ completed: done.filter(Boolean).length, sessions: SESSIONS, events, receiveDelay, rssMb })}\n`);
