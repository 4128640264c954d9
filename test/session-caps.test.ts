import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { monotonicClock } from '../src/runtime/clock.js';
import { resolveSettings, UsageError } from '../src/config/settings.js';
import type { HttpDialect, WebSocketDialect } from '../src/dialects/dialect.js';
import { createDialect, loadDialects } from '../src/dialects/index.js';
import { transcriptionBodyDecoder } from '../src/dialects/transcription-body.js';
import { run } from '../src/run/run.js';
import { TEXT_LIMITS } from '../src/dialects/text-limits.js';
import { runHttpSession, type PreparedRequest } from '../src/session/http-runner.js';
import { prepareTextRequest } from '../src/session/prepare-request.js';
import { prepareText } from '../src/session/prepare-text.js';
import { DEFAULT_TIMEOUTS } from '../src/session/runner.js';
import type { SessionCaps } from '../src/session/session-caps.js';
import { runWebSocketSession } from '../src/session/ws-runner.js';
import type { SessionResult } from '../src/session/runner.js';
import { CLI, runNode, messageText } from './helpers.js';

await loadDialects();

/** 10 ms of 24 kHz PCM16: one audio frame of the hostile servers. */
const FRAME = Buffer.alloc(480);
const speech = { model: 'm', responseFormat: 'pcm', streamFormat: 'audio' as const, outputRate: 24_000 };
const aura = createDialect('deepgram-aura', { model: 'm', turnDetection: { type: 'none' }, speech }) as WebSocketDialect;
const openaiSpeech = createDialect('openai-speech', { model: 'm', turnDetection: { type: 'none' }, speech }) as HttpDialect;
const whisper = createDialect('vllm-transcriptions', {
  model: 'm',
  turnDetection: { type: 'none' },
  speech,
  transcription: { responseFormat: 'json', stream: true, translate: false },
}) as HttpDialect;
const timeouts = { ...DEFAULT_TIMEOUTS, finalMs: 20_000 };

/** Writes `frame()` until told to stop or the peer goes, as fast as the socket drains; at most `count` frames. */
function flood(write: (chunk: Buffer | string) => boolean, onDrain: (resume: () => void) => void, frame: () => Buffer | string, count = Infinity): () => void {
  let sent = 0;
  let stopped = false;
  const pump = (): void => {
    while (!stopped && sent < count) {
      sent++;
      if (!write(frame())) return onDrain(pump);
    }
  };
  pump();
  return () => (stopped = true);
}

/** A Deepgram Aura-shaped server on port 0: its greeting, then what `onFlush` does once the client asks for speech. */
async function auraServer(onFlush: (ws: WebSocket) => void): Promise<string> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (ws) => {
    ws.send(JSON.stringify({ type: 'Metadata' }));
    ws.on('message', (data) => {
      if (messageText(data).includes('"Flush"')) onFlush(ws);
    });
  });
  after(() => {
    for (const client of server.clients) client.terminate();
    return new Promise((resolve) => server.close(resolve));
  });
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An HTTP server on port 0 that answers every request 200 with `contentType` and then what `answer` writes. */
async function httpServer(contentType: string, answer: (res: http.ServerResponse) => void): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': contentType });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes endlessly into a response, with backpressure, until the client goes. */
function endless(res: http.ServerResponse, frame: () => Buffer | string): void {
  const stop = flood(
    (chunk) => res.write(chunk),
    (resume) => res.once('drain', resume),
    frame,
  );
  res.once('close', stop);
}

const speak = (url: string, caps: SessionCaps): Promise<SessionResult> =>
  runWebSocketSession({
    url,
    headers: {},
    dialect: aura,
    inputs: [prepareText({ kind: 'text', id: 'p', split: 'default', path: 'test', text: 'Hello there.' }, aura, { kind: 'all' })],
    pace: { kind: 'realtime', speed: 1 },
    plannedStartMs: 0,
    timeouts,
    clock: monotonicClock(),
    caps,
  });

const request = (url: string, dialect: HttpDialect, prepared: PreparedRequest, caps: SessionCaps): Promise<SessionResult> =>
  runHttpSession({
    url,
    headers: {},
    dialect,
    inputs: [prepared],
    agents: { pooled: new http.Agent(), fresh: new http.Agent() },
    plannedStartMs: 0,
    timeouts,
    clock: monotonicClock(),
    caps,
  });

function failureOf(result: SessionResult): { class: string; message: string } {
  assert.equal(result.outcome.status, 'failed', JSON.stringify(result.outcome));
  return result.outcome.status === 'failed' ? result.outcome.failure : { class: '', message: '' };
}

const MB = 1024 * 1024;

describe('a session keeps what a server sends up to its caps, then counts', () => {
  it(
    'WebSocket speech: events past --max-session-events are counted exactly, not kept, and the session fails as answer_too_large',
    { timeout: 20_000 },
    async () => {
      const url = await auraServer((ws) => {
        for (let i = 0; i < 200; i++) ws.send(FRAME, { binary: true });
        ws.send(JSON.stringify({ type: 'Flushed' }));
      });
      const result = await speak(url, { maxEvents: 50, maxBytes: MB });
      const failure = failureOf(result);
      assert.equal(failure.class, 'answer_too_large');
      assert.match(failure.message, /202 events, more than the 50 .*--max-session-events/);
      const { received, overflow, counters } = result.timeline;
      assert.equal(received.length, 50);
      // Metadata and 49 frames kept; 151 frames and the Flushed counted.
      assert.deepEqual({ ...overflow, firstMs: 0, lastMs: 0 }, { events: 152, audioBytes: 151 * 480, audioMs: 1510, textChars: 0, firstMs: 0, lastMs: 0 });
      assert.equal(counters.framesReceived, 202);
    },
  );

  it(
    "WebSocket speech: events padded to their strings' limits are kept up to a size, not only a count, so the report stays bounded",
    { timeout: 30_000 },
    async () => {
      const padded = JSON.stringify({ type: `Unknown${'x'.repeat(TEXT_LIMITS.fieldChars + 100)}` });
      const url = await auraServer((ws) => {
        for (let i = 0; i < 16_000; i++) ws.send(padded);
        ws.send(JSON.stringify({ type: 'Flushed' }));
      });
      const result = await speak(url, { maxEvents: 100_000, maxBytes: 64 * MB });
      const failure = failureOf(result);
      assert.equal(failure.class, 'answer_too_large');
      assert.match(failure.message, /passed the 16 MiB one session keeps after \d+ events/);
      const { received, overflow } = result.timeline;
      const keptJson = JSON.stringify(received).length;
      assert.ok(received.length > 10_000 && received.length < 16_000, `${received.length} kept`);
      assert.ok(keptJson < 20 * MB, `${keptJson} characters kept`);
      assert.equal(received.length + overflow!.events, 16_002);
    },
  );

  it('WebSocket speech: an endless answer ends at once at --max-session-mb, its kept events at the cap', { timeout: 20_000 }, async () => {
    const url = await auraServer((ws) => {
      const stop = flood(
        (frame) => (ws.send(frame, { binary: true }), ws.bufferedAmount < MB),
        (resume) => setTimeout(resume, 1),
        () => FRAME,
      );
      ws.once('close', stop);
    });
    const started = Date.now();
    const result = await speak(url, { maxEvents: 100, maxBytes: MB });
    const failure = failureOf(result);
    assert.equal(failure.class, 'answer_too_large');
    assert.match(failure.message, /more than 1 MB in one session \(--max-session-mb\)/);
    assert.ok(Date.now() - started < timeouts.finalMs / 2, 'ended by the cap, not the final timeout');
    assert.equal(result.timeline.received.length, 100);
    assert.ok(result.timeline.counters.bytesReceived > MB);
    // Every decoded frame is kept or counted: the frames received but the one that crossed the cap and any after it.
    assert.ok(result.timeline.overflow!.audioBytes <= MB);
  });

  it('HTTP speech: an endless raw audio answer ends at --max-session-mb, its kept events at the cap', { timeout: 20_000 }, async () => {
    const url = await httpServer('audio/pcm', (res) => endless(res, () => FRAME));
    const result = await request(url, openaiSpeech, prepareTextRequest({ id: 'p', split: 'default', text: 'Hello there.' }, openaiSpeech), {
      maxEvents: 20,
      maxBytes: MB,
    });
    assert.equal(failureOf(result).class, 'answer_too_large');
    assert.equal(result.timeline.received.length, 20);
    const { received, overflow, counters } = result.timeline;
    // Each body chunk before the one that crossed the cap is audio, kept or counted; none after it is read.
    const decoded = received.reduce((n, f) => n + (f.audioBytes ?? 0), 0) + overflow!.audioBytes;
    assert.ok(decoded <= MB && decoded > MB - 64 * 1024, `${decoded} bytes decoded`);
    assert.ok(counters.bytesReceived > MB);
    assert.equal(overflow!.audioMs, (overflow!.audioBytes / 48_000) * 1000);
  });

  it(
    'HTTP transcription: an endless server-sent event stream ends at --max-session-mb, its text counted and hashed past the cap',
    { timeout: 20_000 },
    async () => {
      const url = await httpServer('text/event-stream', (res) =>
        endless(res, () => `data: ${JSON.stringify({ object: 'transcription.chunk', choices: [{ delta: { content: 'word ' } }] })}\n\n`),
      );
      const prepared: PreparedRequest = {
        input: { kind: 'text', sampleId: 'a', split: 'default', text: 'x', chars: 1 },
        request: { method: 'POST', path: '/v1/audio/transcriptions', headers: {}, body: Buffer.from('x') },
      };
      const result = await request(url, whisper, prepared, { maxEvents: 30, maxBytes: MB / 4 });
      assert.equal(failureOf(result).class, 'answer_too_large');
      const { received, overflow } = result.timeline;
      assert.equal(received.length, 30);
      assert.equal(overflow!.textChars, overflow!.events * 5);
      assert.equal(overflow!.textSha256, createHash('sha256').update('word '.repeat(overflow!.events)).digest('hex'));
    },
  );

  it(
    'a text bomb ends the session once its text passes what any answer holds, over HTTP and over WebSocket, whatever the byte cap',
    { timeout: 60_000 },
    async () => {
      const piece = 'x'.repeat(MB);
      const url = await httpServer('text/event-stream', (res) =>
        endless(res, () => `data: ${JSON.stringify({ object: 'transcription.chunk', choices: [{ delta: { content: piece } }] })}\n\n`),
      );
      const prepared: PreparedRequest = {
        input: { kind: 'text', sampleId: 'a', split: 'default', text: 'x', chars: 1 },
        request: { method: 'POST', path: '/v1/audio/transcriptions', headers: {}, body: Buffer.from('x') },
      };
      const limit = TEXT_LIMITS.sessionReceivedChars;
      const overText = new RegExp(`^the server sent \\d+ characters of text in one session, over the limit of ${limit} `);
      const http = failureOf(await request(url, whisper, prepared, { maxEvents: 100_000, maxBytes: 1024 * MB }));
      assert.equal(http.class, 'answer_too_large');
      assert.match(http.message, overText);

      // vLLM's realtime deltas, each 1 MiB of text, after the final commit.
      const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
      await new Promise((resolve) => server.once('listening', resolve));
      after(() => new Promise((resolve) => (server.clients.forEach((c) => c.terminate()), server.close(resolve))));
      server.on('connection', (ws) => {
        ws.send(JSON.stringify({ type: 'session.created' }));
        ws.on('message', (data) => {
          if (!messageText(data).includes('"final":true')) return;
          const delta = JSON.stringify({ type: 'transcription.delta', delta: piece });
          flood(
            (chunk) => (ws.send(chunk), ws.bufferedAmount < 4 * MB),
            (resume) => setTimeout(resume, 1),
            () => delta,
            limit / MB + 8,
          );
        });
      });
      const { report } = await run({
        target: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/realtime`,
        model: 'm',
        maxSessions: 1,
        pace: { kind: 'none' },
      });
      const { outcome } = report.benchmarks[0]!.sessions[0]!;
      assert.equal(outcome.status === 'failed' && outcome.failure.class, 'answer_too_large');
      assert.match(outcome.status === 'failed' ? outcome.failure.message : '', overText);
    },
  );

  it("a stream's [DONE] final carries at most what one event keeps, with the whole text's length and SHA-256", () => {
    const decoder = transcriptionBodyDecoder('sse');
    const piece = ' ' + 'x'.repeat(999);
    for (let i = 0; i < 100; i++) decoder.chunk(Buffer.from(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`));
    const final = decoder.chunk(Buffer.from('data: [DONE]\n\n'))[0]!;
    assert.equal(final.kind, 'text_final');
    assert.ok(final.text!.length <= TEXT_LIMITS.eventChars, `kept ${final.text!.length} characters`);
    assert.ok(final.text!.startsWith('x'), 'trimmed at its start');
    assert.deepEqual(final.truncated, { chars: 100_000, sha256: createHash('sha256').update(piece.repeat(100)).digest('hex') });
  });

  it('a well-behaved session keeps every event and completes', { timeout: 20_000 }, async () => {
    const url = await auraServer((ws) => {
      for (let i = 0; i < 49; i++) ws.send(FRAME, { binary: true });
      ws.send(JSON.stringify({ type: 'Flushed' }));
    });
    const result = await speak(url, { maxEvents: 51, maxBytes: MB });
    assert.deepEqual(result.outcome, { status: 'completed' });
    assert.equal(result.timeline.received.length, 51);
    assert.equal(result.timeline.overflow, undefined);
  });

  it('caps are options of run() and flags of the CLI, recorded in the report when not the defaults; bad values are refused', { timeout: 60_000 }, async () => {
    assert.throws(
      () => resolveSettings({ caps: { maxEvents: 0 } }),
      (err: Error) => err instanceof UsageError && /^caps\.maxEvents must be a positive integer, got 0$/.test(err.message),
    );
    assert.throws(
      () => resolveSettings({ caps: { maxBytes: -MB } }),
      (err: Error) => err instanceof UsageError && /^caps\.maxBytes in MiB must be a positive number, got -1$/.test(err.message),
    );
    const { report } = await run({ maxSessions: 1, caps: { maxEvents: 3 } });
    const [session] = report.benchmarks[0]!.sessions;
    assert.equal(session!.outcome.status === 'failed' && session!.outcome.failure.class, 'answer_too_large');
    assert.equal(session!.timeline.received.length, 3);
    assert.deepEqual(report.config.caps, { maxEvents: 3, maxBytes: 1024 * MB });
    const refused = await runNode([CLI, 'run', '--max-session-mb', '0']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--max-session-mb/);
    const help = await runNode([CLI, 'run', '--help']);
    assert.match(help.stdout, /--max-session-events <n>[\s\S]*answer_too_large/);
  });
});
