import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { monotonicClock } from '../src/runtime/clock.js';
import { resolveSettings, UsageError } from '../src/config/settings.js';
import { vllmDialect } from '../src/dialects/vllm/client.js';
import { TEXT_LIMITS } from '../src/dialects/text-limits.js';
import { chunkAudio, type PreparedTurn } from '../src/session/prepare.js';
import { DEFAULT_TIMEOUTS } from '../src/session/runner.js';
import { runWebSocketSession } from '../src/session/ws-runner.js';
import type { Pace } from '../src/session/pace.js';
import { CLI, runNode, messageText } from './helpers.js';

const dialect = vllmDialect({ model: 'm' });

/** Silence as one input: `seconds` of it, in 100 ms chunks. */
function silence(seconds: number): PreparedTurn {
  const { chunks, audioMs } = chunkAudio(Buffer.alloc(seconds * 16_000 * 2), 16_000, 100, dialect);
  return { sampleId: 'silence', split: 'default', reference: null, chunks, audioMs, speechStartMs: 0, speechEndMs: audioMs, eosSource: 'audio_end' };
}

/** A vLLM-shaped server on port 0 that says `session.created`, then does what `onSession` makes it do. */
async function hostileServer(onSession: (ws: WebSocket) => void): Promise<string> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (ws) => {
    ws.send(JSON.stringify({ type: 'session.created' }));
    onSession(ws);
  });
  after(() => {
    for (const client of server.clients) client.terminate();
    return new Promise((resolve) => server.close(resolve));
  });
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/realtime`;
}

const runAgainst = (url: string, inputs: PreparedTurn[], pace: Pace, finalMs = 500) =>
  runWebSocketSession({ url, headers: {}, dialect, inputs, pace, plannedStartMs: 0, timeouts: { ...DEFAULT_TIMEOUTS, finalMs }, clock: monotonicClock() });

describe('a hostile server cannot hold or mislead the runner', () => {
  it('an unpaced session fails with a streaming timeout when the server stops reading', { timeout: 20_000 }, async () => {
    // Ten minutes of audio (25 MB of frames) is far more than the socket buffers hold.
    const url = await hostileServer((ws) => (ws as unknown as { _socket: { pause(): void } })._socket.pause());
    const { outcome } = await runAgainst(url, [silence(600)], { kind: 'none' });
    assert.equal(outcome.status, 'failed');
    if (outcome.status !== 'failed') return;
    assert.equal(outcome.failure.class, 'timeout');
    assert.equal(outcome.failure.stage, 'streaming');
    assert.match(outcome.failure.message, /stopped reading/);
  });

  it('a server that ignores the closing handshake is cut after a short grace, not 30 s', { timeout: 10_000 }, async () => {
    let serverSideClosed!: Promise<void>;
    const url = await hostileServer((ws) => {
      serverSideClosed = new Promise((resolve) => ws.once('close', () => resolve()));
      ws.on('message', (data) => {
        if (!messageText(data).includes('"final":true')) return;
        ws.send(JSON.stringify({ type: 'transcription.done', text: '' }));
        // Discard everything from now on: the client's close frame is never seen, so never answered.
        const socket = (ws as unknown as { _socket: NodeJS.EventEmitter })._socket;
        socket.removeAllListeners('data');
        socket.on('data', () => {});
      });
    });
    const { outcome } = await runAgainst(url, [silence(1)], { kind: 'none' });
    assert.deepEqual(outcome, { status: 'completed' });
    await serverSideClosed;
  });

  it('a ping flood closes the connection from the client side, and the record says so', { timeout: 10_000 }, async () => {
    const url = await hostileServer((ws) => {
      for (let i = 0; i < 500; i++) ws.ping();
    });
    const { outcome, timeline } = await runAgainst(url, [silence(3)], { kind: 'realtime', speed: 1 });
    assert.equal(outcome.status, 'failed');
    if (outcome.status !== 'failed') return;
    assert.equal(outcome.failure.class, 'protocol_violation');
    assert.match(outcome.failure.message, /pings/);
    const close = timeline.transport.kind === 'websocket' ? timeline.transport.close : undefined;
    assert.equal(close?.by, 'client');
    assert.match(close?.reason ?? '', /pongs/);
  });
});

describe('server text is kept within bounds', () => {
  it('cuts each event and the session to the limits, keeping the full length and hash of what was cut', { timeout: 20_000 }, async () => {
    // 200 KB per event, each cut to what an event keeps; 4 MB in all, under the text a session may be sent (TEXT_LIMITS.sessionReceivedChars).
    const huge = 'word '.repeat(40_000);
    const url = await hostileServer((ws) => {
      ws.on('message', (data) => {
        if (!messageText(data).includes('"final":true')) return;
        for (let i = 0; i < 20; i++) ws.send(JSON.stringify({ type: 'transcription.delta', delta: huge }));
        ws.send(JSON.stringify({ type: 'transcription.done', text: huge }));
      });
    });
    const { outcome, timeline } = await runAgainst(url, [silence(1)], { kind: 'none' }, 10_000);
    // Every event is still kept, each cut; a cut text is not a transcript, so the session gives no figures.
    assert.equal(outcome.status === 'failed' && outcome.failure.class, 'answer_too_large');
    const texts = timeline.received.filter((e) => e.text !== undefined);
    assert.equal(texts.length, 21);
    assert.ok(texts.every((e) => e.text!.length <= TEXT_LIMITS.eventChars));
    assert.equal(
      texts.reduce((n, e) => n + e.text!.length, 0),
      TEXT_LIMITS.sessionChars,
    );
    const sha256 = createHash('sha256').update(huge).digest('hex');
    assert.ok(texts.every((e) => e.truncated?.chars === huge.length && e.truncated.sha256 === sha256));
    assert.ok(JSON.stringify(timeline).length < 2 * TEXT_LIMITS.sessionChars, 'the stored timeline stays small');
  });
});

describe('limits beyond what a timer can hold', () => {
  it('are refused with the flag named, instead of firing at once', () => {
    assert.throws(
      () => resolveSettings({ maxSeconds: 3_000_000 }),
      (err: Error) => err instanceof UsageError && /^maxSeconds is at most 2147483 s/.test(err.message),
    );
    assert.throws(() => resolveSettings({ timeouts: { finalMs: 3_000_000_000 } }), /^OptionsError: timeouts\.finalMs is at most/);
    assert.doesNotThrow(() => resolveSettings({ maxSeconds: 2_000_000 }));
  });

  it('exit 2 with one line from the CLI', async () => {
    const result = await runNode([CLI, 'run', '--max-seconds', '3000000']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /--max-seconds is at most/);
  });
});
