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
 *   node dist/bench/pacing/meter.js [chunkMs] [processes]
 *       # prints `meter ws://127.0.0.1:PORT/v1/realtime control http://127.0.0.1:PORT`
 *   GET /stats on the control URL                # the figures since the last reset, JSON
 *   POST /reset on the control URL               # forget every connection measured so far
 *
 * With more than one process (node:cluster), the workers share the WebSocket port (the
 * primary deals out connections in turn), so no one event loop stamps every chunk of a
 * large level; the primary serves the control URL and merges the workers' figures.
 */
import cluster, { type Worker } from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { WebSocketServer, type RawData } from 'ws';

const CHUNK_MS = Number(process.argv[2] ?? 100);
const PROCESSES = Number(process.argv[3] ?? 1);
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

/** The control requests, answered from `reset` and `parts` (this process's, or the workers' merged). */
function control(reset: () => Promise<void>, parts: () => Promise<Parts>): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (request.method === 'POST' && request.url === '/reset') {
      void reset().then(() => response.end('{}'));
    } else if (request.url === '/stats') {
      void parts().then((p) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(stats(p)));
      });
    } else {
      response.statusCode = 404;
      response.end();
    }
  };
}

type Request = { type: 'reset' | 'parts' };
type Reply = { type: 'listening'; port: number } | { type: 'reset' } | { type: 'parts'; parts: Parts };

if (cluster.isPrimary && PROCESSES > 1) {
  const workers = Array.from({ length: PROCESSES }, () => cluster.fork());
  /** Asks every worker, and resolves with their replies. */
  const ask = (type: Request['type']): Promise<Reply[]> =>
    Promise.all(
      workers.map(
        (w: Worker) =>
          new Promise<Reply>((resolve) => {
            const listener = (reply: Reply): void => {
              if (reply.type !== type) return;
              w.off('message', listener);
              resolve(reply);
            };
            w.on('message', listener);
            w.send({ type } satisfies Request);
          }),
      ),
    );
  const ports = await Promise.all(
    workers.map((w) => new Promise<number>((resolve) => w.once('message', (m: Reply) => m.type === 'listening' && resolve(m.port)))),
  );
  const http = createServer(
    control(
      async () => void (await ask('reset')),
      async () => {
        const merged: Parts = { connections: 0, start: [], steady: [], end: [] };
        for (const reply of await ask('parts')) {
          if (reply.type !== 'parts') continue;
          merged.connections += reply.parts.connections;
          for (const key of PART_NAMES) for (const ms of reply.parts[key]) merged[key].push(ms);
        }
        return merged;
      },
    ),
  );
  http.listen(0, '127.0.0.1', () =>
    console.log(`meter ws://127.0.0.1:${ports[0]}/v1/realtime control http://127.0.0.1:${(http.address() as { port: number }).port}`),
  );
} else {
  serve();
}

/** The WebSocket side: every connection's chunks stamped; alone, it serves the control requests too. */
function serve(): void {
  const alone = !cluster.isWorker;
  const reset = (): Promise<void> => {
    measured = [];
    return Promise.resolve();
  };
  const http = createServer(alone ? control(reset, () => Promise.resolve(parts(measured))) : (_q, response) => response.end());
  if (!alone) {
    process.on('disconnect', () => process.exit(0)); // the primary is gone
    process.on('message', (request: Request) => {
      if (request.type === 'reset') measured = [];
      process.send!(request.type === 'reset' ? ({ type: 'reset' } satisfies Reply) : ({ type: 'parts', parts: parts(measured) } satisfies Reply));
    });
  }
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
    if (alone) console.log(`meter ws://127.0.0.1:${port}/v1/realtime control http://127.0.0.1:${port}`);
    else process.send!({ type: 'listening', port } satisfies Reply);
  });
}

interface Spread {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

const PART_NAMES = ['start', 'steady', 'end'] as const;
/** Every chunk's lateness, ms, by part of the stream, and the connections they came on. */
interface Parts {
  connections: number;
  start: number[];
  steady: number[];
  end: number[];
}

/** Each chunk's lateness against its connection's best schedule. */
function parts(connections: Arrivals[]): Parts {
  const result: Parts = { connections: connections.length, start: [], steady: [], end: [] };
  for (const { times, count } of connections) {
    let t0 = Infinity;
    for (let k = 0; k < count; k++) t0 = Math.min(t0, times[k]! - k * CHUNK_MS);
    for (let k = 0; k < count; k++) (k < STEADY_START ? result.start : k <= STEADY_END ? result.steady : result.end).push(times[k]! - (t0 + k * CHUNK_MS));
  }
  return result;
}

/** The figures: over all chunks, and by part of the stream. */
function stats(p: Parts): { connections: number; all: Spread; start: Spread; steady: Spread; end: Spread } {
  return { connections: p.connections, all: spread([...p.start, ...p.steady, ...p.end]), start: spread(p.start), steady: spread(p.steady), end: spread(p.end) };
}

/** Nearest-rank percentiles. */
function spread(values: number[]): Spread {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.length === 0 ? 0 : sorted[sorted.length - 1]! };
}
