/**
 * The speech-out load: a server in its own process that answers speech generation from
 * audio rendered and encoded once at start, on schedule, doing nothing per chunk but
 * write the same prepared frame, so a thousand sessions cost it little and the client
 * under test is what is measured (as the pacing meter does for transcription).
 *
 *   node dist/bench/speech-load.js [chunkMs] [chunks]
 *       # prints `speech-load http://127.0.0.1:PORT`
 *
 * - `POST /v1/audio/speech` (vllm-omni-speech, `stream_format: "sse"`): `chunks` events
 *   `speech.audio.delta` of `chunkMs` of 24 kHz PCM16, one every `chunkMs`, then
 *   `speech.audio.done` and the end of the body.
 * - `/v1/audio/speech/stream` (vllm-omni-speech-ws): after `session.config`, each
 *   `input.done` is answered `audio.start`, `chunks` binary PCM16 frames on schedule,
 *   `audio.done`, `session.done`; the socket stays open for the next input.
 *
 * Every session's chunk k is written at its start + k·chunkMs by one shared timer per
 * tick, so the cost is a write per chunk, and the schedule does not drift with load.
 *
 * - `GET /stamps` (then forgotten): when this server received each answer's request and
 *   wrote each of its audio chunks, `performance.timeOrigin + performance.now()` ms, by
 *   answer: an SSE answer by the number its `server-timing: load-answer;dur=N` header
 *   gave the client (which keeps it), a WebSocket answer by the client's port. The bench
 *   compares the client's TTFA and stalls with the same figures from these stamps.
 */
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { ANSWER_TIMING, type AnswerStamps, type LoadStamps } from './load-stamps.js';

const CHUNK_MS = Number(process.argv[2] ?? 100);
const CHUNKS = Number(process.argv[3] ?? 30);
const RATE = 24_000;

/** One chunk of speech: the bundled sample's PCM (its rate is not 24 kHz, but the client only counts the bytes). */
const wav = readFileSync(fileURLToPath(new URL('../../samples/harvard-01.wav', import.meta.url)));
const pcm = wav.subarray(44, 44 + Math.round((RATE * 2 * CHUNK_MS) / 1000));
const sseDelta = Buffer.from(`data: ${JSON.stringify({ type: 'speech.audio.delta', audio: pcm.toString('base64') })}\n\n`);
const sseDone = Buffer.from(`data: ${JSON.stringify({ type: 'speech.audio.done', usage: null })}\n\n`);
const wsStart = JSON.stringify({ type: 'audio.start' });
const wsAudioDone = JSON.stringify({ type: 'audio.done' });
const wsSessionDone = JSON.stringify({ type: 'session.done' });

const stamps: LoadStamps = { sse: {}, ws: {} };
let answered = 0;
const wallNow = (): number => performance.timeOrigin + performance.now();

/** An answer in progress: `write(k)` sends chunk k, `end()` closes it. */
interface Answer {
  next: number;
  dueMs: number;
  write(k: number): void;
  end(): void;
}

let answers: Answer[] = [];
/** Writes every chunk due, each answer's on its own schedule (a late tick catches up, so the schedule never drifts). */
setInterval(() => {
  const now = performance.now();
  const still: Answer[] = [];
  for (const a of answers) {
    while (a.next < CHUNKS && a.dueMs <= now) {
      a.write(a.next++);
      a.dueMs += CHUNK_MS;
    }
    if (a.next === CHUNKS) a.end();
    else still.push(a);
  }
  answers = still;
}, 1).unref();

/** Starts an answer, its writes stamped into `stamped`. */
const start = (answer: Omit<Answer, 'next' | 'dueMs'>, stamped: AnswerStamps): void => {
  const write = (k: number): void => {
    stamped.writesAt.push(wallNow());
    answer.write(k);
  };
  write(0);
  answers.push({ write, end: answer.end, next: 1, dueMs: performance.now() + CHUNK_MS });
};

const http = createServer((request, response: ServerResponse) => {
  if (request.method === 'GET' && request.url === '/stamps') {
    response.end(JSON.stringify(stamps));
    stamps.sse = {};
    stamps.ws = {};
    return;
  }
  if (request.method !== 'POST' || request.url !== '/v1/audio/speech') {
    response.statusCode = 404;
    return response.end();
  }
  request.resume();
  request.on('end', () => {
    const stamped: AnswerStamps = { requestAt: wallNow(), writesAt: [] };
    const id = ++answered;
    stamps.sse[id] = stamped;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'server-timing': `${ANSWER_TIMING};dur=${id}` });
    start({ write: () => response.write(sseDelta), end: () => response.end(sseDone) }, stamped);
  });
});
http.keepAliveTimeout = 60_000;

const wss = new WebSocketServer({ server: http, path: '/v1/audio/speech/stream', perMessageDeflate: false });
wss.on('connection', (ws: WebSocket, request) => {
  const port = String(request.socket.remotePort);
  ws.on('message', (data: RawData, isBinary: boolean) => {
    if (isBinary) return;
    const text = (data as Buffer).toString();
    if (!text.includes('"input.done"')) return;
    const stamped: AnswerStamps = { requestAt: wallNow(), writesAt: [] };
    stamps.ws[port] = stamped;
    ws.send(wsStart);
    start(
      {
        write: () => ws.send(pcm, { binary: true }),
        end: () => {
          ws.send(wsAudioDone);
          ws.send(wsSessionDone);
        },
      },
      stamped,
    );
  });
});
http.listen(0, '127.0.0.1', () => console.log(`speech-load http://127.0.0.1:${(http.address() as { port: number }).port}`));
