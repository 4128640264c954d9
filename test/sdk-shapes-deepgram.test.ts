import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DeepgramClient } from '@deepgram/sdk';
import WebSocket, { WebSocketServer } from 'ws';
import { run } from '../src/run/run.js';
import { messageText, recordingRelay, testServer } from './helpers.js';
import { assertTypes, exchange, harvardPcm16, wsOrigin } from './sdk-types.js';

/**
 * Deepgram's `/v1/listen` as `@deepgram/sdk` 5.13 types it: every frame the built-in
 * server sends and every frame voxbench sends compiles against the SDK's `ListenV1*`
 * types, and the SDK's own client gets its transcripts from the built-in server. 5.13
 * types `ConfigureSuccess` and `ConfigureFailure` for Flux (`/v2/listen`) only: the
 * `/v1/listen` answers are typed here from Deepgram's changelog of 2026-10-19 (`type`,
 * `request_id`, and on success the keyterms in effect), beside the `Configure` of
 * 2026-10-02 (`keyterms`, `features`).
 */
const PREAMBLE = `
import type { listen } from '@deepgram/sdk';
interface Configure { type: 'Configure'; keyterms?: string[] | null; features?: Record<string, boolean> }
interface ConfigureSuccess { type: 'ConfigureSuccess'; request_id: string; keyterms?: string[] }
interface ConfigureFailure { type: 'ConfigureFailure'; request_id: string; description?: string }
type Received = listen.ListenV1Results | listen.ListenV1Metadata | listen.ListenV1UtteranceEnd | listen.ListenV1SpeechStarted | ConfigureSuccess | ConfigureFailure;
type Sent = listen.ListenV1Finalize | listen.ListenV1CloseStream | listen.ListenV1KeepAlive | Configure;
`;
/** The control frames `ListenV1Finalize`, `ListenV1CloseStream` and `ListenV1KeepAlive` name (their `type` also admits any string). */
const CONTROLS = new Set(['Finalize', 'CloseStream', 'KeepAlive', 'Configure']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FORMAT = 'encoding=linear16&sample_rate=16000&channels=1';
const SERVER_VAD = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 300 } as const;

type Message = Record<string, unknown> & { type: string };

describe('deepgram in the shapes of @deepgram/sdk', () => {
  it('the built-in server: Results (with model_uuid), SpeechStarted, UtteranceEnd, Metadata and both Configure answers in the SDK types', async () => {
    const server = await testServer();
    const query = `model=nova-3&${FORMAT}&interim_results=true&vad_events=true&endpointing=300&utterance_end_ms=1000&diarize=true`;
    const messages = await exchange<Message>(`${wsOrigin(server.url)}/v1/listen?${query}`, [
      { type: 'Configure', keyterms: ['canoe'] },
      await harvardPcm16(),
      silence(1.5),
      { type: 'Configure', keyterms: 'canoe' },
      { type: 'Finalize' },
      { type: 'KeepAlive' },
      { type: 'CloseStream' },
    ]);
    assertTypes(
      PREAMBLE,
      messages.map((value) => ({ value, type: 'Received' })),
    );
    const types = new Set(messages.map((m) => m.type));
    for (const type of ['Results', 'SpeechStarted', 'UtteranceEnd', 'Metadata', 'ConfigureSuccess', 'ConfigureFailure'])
      assert.ok(types.has(type), `${type} sent`);
    const results = messages.filter((m) => m.type === 'Results');
    assert.ok(
      results.every((m) => UUID.test(String((m.metadata as { model_uuid?: unknown }).model_uuid))),
      'every Results names its model by UUID',
    );
    const answers = messages.filter((m) => m.type.startsWith('Configure'));
    assert.deepEqual(
      answers.map((m) => m.type),
      ['ConfigureSuccess', 'ConfigureFailure'],
      'exactly one answer to each Configure, in order',
    );
    assert.deepEqual(answers[0]!.keyterms, ['canoe'], 'the keyterms now in effect');
  });

  it('UtteranceEnd follows utterance_end_ms of audio after the last finalized word, even when a Finalize finalized it', async () => {
    const server = await testServer();
    const query = `model=nova-3&${FORMAT}&interim_results=true&endpointing=false&utterance_end_ms=1000&diarize=true`;
    const messages = await exchange<Message>(`${wsOrigin(server.url)}/v1/listen?${query}`, [
      await harvardPcm16(),
      { type: 'Finalize' },
      silence(1.5),
      { type: 'CloseStream' },
    ]);
    const finalized = messages.findIndex((m) => m.type === 'Results' && m.from_finalize === true);
    const words = messages
      .slice(0, finalized + 1)
      .filter((m) => m.type === 'Results' && m.is_final === true)
      .flatMap((m) => (m.channel as { alternatives: Array<{ words: Array<{ end: number }> }> }).alternatives[0]!.words);
    const ends = messages.map((m, i) => ({ m, i })).filter(({ m }) => m.type === 'UtteranceEnd');
    assert.equal(ends.length, 1, `one UtteranceEnd: ${messages.map((m) => m.type).join(' ')}`);
    assert.ok(ends[0]!.i > finalized, 'after the words were finalized');
    assert.equal(ends[0]!.m.last_word_end, words.at(-1)!.end, 'naming where the last finalized word ended');
  });

  it("voxbench's client: its frames in the SDK types; ConfigureSuccess times the update (update_ms), nothing refused", async () => {
    const server = await testServer();
    const relay = await recordingRelay(`${wsOrigin(server.url)}/v1/listen`);
    const { report } = await run({
      protocol: 'deepgram',
      model: 'nova-3',
      target: `${relay.url}?diarize=true`,
      turnDetection: SERVER_VAD,
      updateAtMs: 300,
      turnsPerSession: 2,
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.equal(session.outcome.status, 'completed');
    for (const type of ['Configure', 'CloseStream'])
      assert.ok(
        relay.sent.some((m) => m.type === type),
        `${type} sent`,
      );
    assert.ok(
      relay.sent.every((m) => CONTROLS.has(String(m.type))),
      `only the controls the SDK names: ${relay.sent.map((m) => m.type).join(' ')}`,
    );
    assertTypes(PREAMBLE, [...relay.sent.map((value) => ({ value, type: 'Sent' })), ...relay.received.map((value) => ({ value, type: 'Received' }))]);
    const updated = session.timeline.received.filter((e) => e.kind === 'updated');
    assert.deepEqual(
      updated.map((e) => e.type),
      ['ConfigureSuccess'],
    );
    assert.ok(session.metrics.session.update_ms! > 0, 'the Configure to its ConfigureSuccess');
    assert.equal(session.metrics.session.updates_refused, 0);
  });

  it('a ConfigureFailure is counted as a refused update; the stream goes on and the session completes', async () => {
    const server = await testServer();
    // voxbench's Configure changes nothing; this relay spoils its keyterms, so the server refuses it.
    const url = await spoilingRelay(`${wsOrigin(server.url)}/v1/listen`, (text) =>
      text.replace('{"type":"Configure"}', '{"type":"Configure","keyterms":"canoe"}'),
    );
    const { report } = await run({
      protocol: 'deepgram',
      model: 'nova-3',
      target: url,
      updateAtMs: 300,
      turnsPerSession: 2,
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.equal(session.outcome.status, 'completed');
    const refused = session.timeline.received.filter((e) => e.type === 'ConfigureFailure');
    assert.deepEqual(
      refused.map((e) => [e.kind, e.scope, e.code]),
      [['error', 'update', 'ConfigureFailure']],
    );
    assert.equal(session.metrics.session.updates_refused, 1);
    assert.equal(session.metrics.session.update_ms, undefined, 'a refused update never took effect');
    assert.deepEqual(
      session.metrics.inputs.map((i) => i.wer),
      [0, 0],
    );
  });

  it("the SDK's own listen.v1 client, pointed at the built-in server, gets its transcript", async () => {
    const server = await testServer({ apiKey: 'secret' });
    const client = new DeepgramClient({ apiKey: 'secret', baseUrl: wsOrigin(server.url) });
    const socket = await client.listen.v1.connect({
      model: 'nova-3',
      encoding: 'linear16',
      sample_rate: 16_000,
      interim_results: 'true',
      Authorization: 'Token secret',
      reconnectAttempts: 0,
    });
    const messages: Message[] = [];
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('message', (m) => messages.push(m as unknown as Message));
    socket.connect();
    await socket.waitForOpen();
    const pcm = await harvardPcm16();
    for (let at = 0; at < pcm.length; at += 3_200) socket.sendMedia(pcm.subarray(at, at + 3_200));
    socket.sendFinalize({ type: 'Finalize' });
    socket.sendCloseStream({ type: 'CloseStream' });
    await closed;
    const final = messages.find((m) => m.type === 'Results' && m.from_finalize === true);
    assert.ok(final, `a Finalize answer: ${messages.map((m) => m.type).join(' ')}`);
    const text = messages
      .filter((m) => m.type === 'Results' && m.is_final === true)
      .map((m) => (m.channel as { alternatives: Array<{ transcript: string }> }).alternatives[0]!.transcript)
      .join(' ')
      .replace(/\s+/g, ' ');
    assert.match(text, /birch canoe slid on the smooth planks/i);
    assert.ok(messages.some((m) => m.type === 'Metadata'));
    assertTypes(
      PREAMBLE,
      messages.map((value) => ({ value, type: 'Received' })),
    );
  });
});

function silence(seconds: number): Buffer {
  return Buffer.alloc(seconds * 16_000 * 2);
}

/** A relay in front of `target` that rewrites each text frame a client sends with `spoil`. */
async function spoilingRelay(target: string, spoil: (text: string) => string): Promise<string> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((ok) => wss.once('listening', ok));
  after(() => wss.close());
  wss.on('connection', (client, request) => {
    const upstream = new WebSocket(new URL(request.url!, target));
    const waiting: Array<() => void> = [];
    const toServer = (send: () => void): void => (upstream.readyState === WebSocket.OPEN ? send() : void waiting.push(send));
    upstream.on('open', () => waiting.splice(0).forEach((send) => send()));
    client.on('message', (data, binary) => toServer(() => upstream.send(binary ? data : spoil(messageText(data)), { binary })));
    upstream.on('message', (data, binary) => client.send(data, { binary }));
    client.on('close', () => upstream.close());
    upstream.on('close', (code) => client.close(code === 1005 ? 1000 : code));
  });
  const { port } = wss.address() as { port: number };
  return `ws://127.0.0.1:${port}${new URL(target).pathname}`;
}
