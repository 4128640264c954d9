/**
 * The pacing meter: a server in its own process that speaks just enough of vLLM's
 * realtime dialect for a client to finish its sessions (`session.created` on connect, a
 * `transcription.done` for each final commit), and stamps every audio chunk frame as it
 * arrives (`process.hrtime`, before anything is parsed). For each connection, chunk k's
 * lateness is its arrival minus its place in the connection's best schedule:
 *
 *   lateness_k = arrival_k − (t0 + k·chunkMs),  t0 = min_k (arrival_k − k·chunkMs)
 *
 * so the earliest chunk relative to the schedule has lateness 0 and none is negative:
 * what is measured is the pacing error the server sees, whatever the client's clock.
 *
 *   node dist/bench/pacing/meter.js [chunkMs]   # prints `meter ws://127.0.0.1:PORT/v1/realtime`
 *   GET /stats                                   # the figures since the last reset, JSON
 *   POST /reset                                  # forget every connection measured so far
 */
import { createServer } from 'node:http';
import { WebSocketServer, type RawData } from 'ws';

const CHUNK_MS = Number(process.argv[2] ?? 100);
/** Chunks from this one to STEADY_END are the steady state; before it the start, after it the end. */
const STEADY_START = 20;
const STEADY_END = 180;
/** An audio chunk's frame carries base64 PCM (100 ms at 16 kHz is 4.3 KB); control frames are a few dozen bytes. */
const AUDIO_FRAME_BYTES = 512;

const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Arrival times of one connection's audio chunks, ms. */
class Arrivals {
  times = new Float64Array(256);
  count = 0;
  push(t: number): void {
    if (this.count === this.times.length) {
      const grown = new Float64Array(this.count * 2);
      grown.set(this.times);
      this.times = grown;
    }
    this.times[this.count++] = t;
  }
}

let measured: Arrivals[] = [];

const http = createServer((request, response) => {
  if (request.method === 'POST' && request.url === '/reset') {
    measured = [];
    response.end('{}');
  } else if (request.url === '/stats') {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(stats(measured)));
  } else {
    response.statusCode = 404;
    response.end();
  }
});
const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
const created = JSON.stringify({ type: 'session.created', id: 'meter' });
const done = JSON.stringify({ type: 'transcription.done', text: '' });

wss.on('connection', (ws) => {
  const arrivals = new Arrivals();
  measured.push(arrivals);
  ws.on('message', (data: RawData) => {
    const t = now();
    const bytes = data as Buffer;
    if (bytes.length > AUDIO_FRAME_BYTES) return arrivals.push(t);
    const event = JSON.parse(bytes.toString()) as { type?: string; final?: boolean };
    if (event.type === 'input_audio_buffer.commit' && event.final) ws.send(done);
  });
  ws.send(created);
});

http.listen(0, '127.0.0.1', () => {
  const { port } = http.address() as { port: number };
  console.log(`meter ws://127.0.0.1:${port}/v1/realtime`);
});

interface Spread {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Lateness of every chunk measured, ms: over all chunks, and by part of the stream. */
function stats(connections: Arrivals[]): { connections: number; all: Spread; start: Spread; steady: Spread; end: Spread } {
  const parts = { all: [] as number[], start: [] as number[], steady: [] as number[], end: [] as number[] };
  for (const { times, count } of connections) {
    let t0 = Infinity;
    for (let k = 0; k < count; k++) t0 = Math.min(t0, times[k]! - k * CHUNK_MS);
    for (let k = 0; k < count; k++) {
      const lateness = times[k]! - (t0 + k * CHUNK_MS);
      parts.all.push(lateness);
      (k < STEADY_START ? parts.start : k <= STEADY_END ? parts.steady : parts.end).push(lateness);
    }
  }
  return {
    connections: connections.length,
    all: spread(parts.all),
    start: spread(parts.start),
    steady: spread(parts.steady),
    end: spread(parts.end),
  };
}

/** Nearest-rank percentiles. */
function spread(values: number[]): Spread {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.length === 0 ? 0 : sorted[sorted.length - 1]! };
}
