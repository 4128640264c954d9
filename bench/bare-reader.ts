/**
 * The ceiling for the speech-out scale bench: a client that opens the same streams as
 * voxbench (started over the same ramp) and only stamps each arrival, doing nothing
 * else; the loopback probe measures its receive-stamp delay as it does voxbench's.
 *
 *   node dist/bench/bare-reader.js <url> <sse|ws|duplex> <sessions> <rampMs>
 *       # prints one JSON line: {completed, sessions, events, receiveDelay, rssMb, cpuMs}
 *
 * `cpuMs` is the process's CPU time (user and system, every thread) from the first
 * session's start to the last one's end, as bench/session-cpu.ts takes voxbench's.
 *
 * Duplex (vllm-omni-duplex against `voxbench serve`) must speak to be answered: each
 * session streams the bundled sample's audio at real time from frames encoded once,
 * commits it, acknowledges the server's numbered events (its resume window is bounded)
 * by reading the number off the frame's end, and ends at `response.done`.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
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

/** The sample's 16 kHz PCM16 in 100 ms appends, encoded once. */
const samplePcm = readFileSync(fileURLToPath(new URL('../../samples/harvard-01.wav', import.meta.url))).subarray(44);
const appends = Array.from({ length: Math.ceil(samplePcm.length / 3200) }, (_, k) =>
  JSON.stringify({
    type: 'input_audio_buffer.append',
    audio: samplePcm.subarray(k * 3200, (k + 1) * 3200).toString('base64'),
    format: 'pcm16',
    sample_rate_hz: 16_000,
  }),
);
const SEQ_KEY = '"server_event_seq":';

function duplex(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url}?duplex=1&model=openbmb/MiniCPM-o-4_5&autostart=0`, { perMessageDeflate: false });
    let timer: NodeJS.Timeout | undefined;
    socket.on('message', (data: Buffer) => {
      arrive();
      const seqAt = data.lastIndexOf(SEQ_KEY);
      const seq = seqAt >= 0 ? Number(data.toString('latin1', seqAt + SEQ_KEY.length, data.length - 1)) : NaN;
      if (Number.isInteger(seq)) socket.send(`{"type":"session.event_ack","server_event_seq":${seq}}`);
      if (timer === undefined && data.includes('"session.created"')) {
        socket.send(
          JSON.stringify({ type: 'session.update', session: { model: 'openbmb/MiniCPM-o-4_5', turn_detection: null, extra_body: { auto_response: true } } }),
        );
        let k = 0;
        timer = setInterval(() => {
          if (k < appends.length) return socket.send(appends[k++]!);
          clearInterval(timer);
          socket.send(JSON.stringify({ type: 'input_audio_buffer.commit', final: true, response_create: true }));
        }, 100);
      } else if (data.includes('"response.done"')) {
        socket.send('{"type":"session.close"}');
        resolve(true);
      }
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve(false);
    });
    socket.on('error', () => resolve(false));
  });
}

const probe = await startStampProbe();
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const cpuBefore = cpuMs();
let rssMb = 0;
const rss = setInterval(() => (rssMb = Math.max(rssMb, process.memoryUsage.rss() / 2 ** 20)), 100);
const open = dialect === 'ws' ? ws : dialect === 'duplex' ? duplex : sse;
const done = await Promise.all(
  Array.from({ length: SESSIONS }, (_, k) => new Promise<boolean>((resolve) => setTimeout(() => void open().then(resolve), (k * RAMP_MS) / SESSIONS))),
);
const cpu = cpuMs() - cpuBefore;
clearInterval(rss);
const receiveDelay = await probe.stop();
agent.destroy();
process.stdout.write(`${JSON.stringify({ completed: done.filter(Boolean).length, sessions: SESSIONS, events, receiveDelay, rssMb, cpuMs: cpu })}\n`);
