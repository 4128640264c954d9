import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeReasonCode, deepgramDialect, KEEPALIVE_MS, listenReader, readDeepgramSent } from '../src/dialects/deepgram/client.js';
import { DEEPGRAM } from '../src/dialects/deepgram/spec.js';
import type { DecodedEvent, WebSocketDialect } from '../src/dialects/dialect.js';
import { startProxy } from '../src/proxy/proxy.js';
import type { HeldSession } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import { monotonicClock } from '../src/runtime/clock.js';
import { chunkAudio, type PreparedTurn } from '../src/session/prepare.js';
import { DEFAULT_TIMEOUTS } from '../src/session/runner.js';
import { runWebSocketSession } from '../src/session/ws-runner.js';
import type { SessionOutcome } from '../src/timeline/types.js';
import { messageText, tempDir, testServer } from './helpers.js';

const CLIENT = { type: 'none' } as const;
const SERVER_VAD = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } as const;

/** A Results as Deepgram's API reference shows one (times in seconds), with the given transcript and flags. */
function results(transcript: string, start: number, duration: number, flags: Record<string, boolean> = {}): string {
  return JSON.stringify({
    type: 'Results',
    channel_index: [0, 1],
    duration,
    start,
    is_final: false,
    speech_final: false,
    ...flags,
    channel: { alternatives: [{ transcript, confidence: 0.98, words: [] }] },
    metadata: {
      request_id: 'a3a6c9d4-4f4c-4b6b-9a0e-6a2f0f5b1c11',
      model_uuid: '1dbdfb4d-85b2-4659-9831-16b3c76229aa',
      model_info: { name: '2-general-nova', version: '2024-01-18.26916', arch: 'nova-3' },
    },
  });
}

/** Feeds frames to one session's reader and returns every event, with the frame each came from. */
function read(turns: 'client' | 'server', frames: string[]): DecodedEvent[] {
  const decode = listenReader(turns);
  return frames.flatMap((frame) => decode(Buffer.from(frame), false));
}
/** Each event as `kind:text@item`, a provisional delta (an interim result) marked `~`. */
const brief = (events: DecodedEvent[]) =>
  events.map((e) => `${e.kind}${e.provisional ? '~' : ''}${e.text !== undefined ? `:${e.text}` : ''}${e.itemId ? `@${e.itemId}` : ''}`);

describe('deepgram: the codec against the documented messages', () => {
  it("connects to /v1/listen with the audio's format and the options the settings imply, keeping the target's own", () => {
    const client = new URL(deepgramDialect({ model: 'nova-3', language: 'en', turnDetection: CLIENT }).connectUrl('wss://api.deepgram.com'));
    assert.equal(client.pathname, DEEPGRAM.path);
    assert.deepEqual(Object.fromEntries(client.searchParams), {
      encoding: 'linear16',
      sample_rate: '16000',
      channels: '1',
      model: 'nova-3',
      interim_results: 'true',
      language: 'en',
      endpointing: 'false',
    });
    const server = new URL(
      deepgramDialect({ model: 'nova-3', turnDetection: SERVER_VAD }).connectUrl(
        'wss://h/v1/listen?model=nova-2&diarize=true&smart_format=true&sample_rate=8000',
      ),
    );
    assert.equal(server.searchParams.get('model'), 'nova-2', "the target's model is kept");
    assert.equal(server.searchParams.get('diarize'), 'true');
    assert.equal(server.searchParams.get('smart_format'), 'true');
    assert.equal(server.searchParams.get('sample_rate'), '16000', 'the audio is what voxbench sends');
    assert.equal(server.searchParams.get('endpointing'), '500', "server_vad's silence is the endpointing");
    assert.equal(server.searchParams.get('utterance_end_ms'), '1000', "Deepgram's smallest");
    assert.equal(server.searchParams.get('vad_events'), 'true');
  });

  it('client turns: interim results are provisional deltas, final ranges lasting ones, and the Finalize answer is the whole input', () => {
    const events = read('client', [
      results('the', 0, 0.5),
      results('the birch', 0, 1),
      results('the birch canoe', 0, 1.5, { is_final: true }),
      results('slid', 1.5, 0.5),
      results('slid', 1.5, 0.5), // a restatement is a hypothesis again
      results('slit on', 1.5, 1), // a revised word: the next hypothesis replaces it
      results('slid on the planks', 1.5, 1.5, { is_final: true, from_finalize: true }),
      results('', 3, 0.2), // silence after the input
    ]);
    assert.deepEqual(brief(events), [
      'text_delta~:the',
      'text_delta~:the birch',
      'text_delta:the birch canoe',
      'text_delta~: slid',
      'text_delta~: slid',
      'text_delta~: slit on',
      'text_delta: slid on the planks',
      'text_final:the birch canoe slid on the planks',
      'other',
    ]);
    const final = events.find((e) => e.kind === 'text_final')!;
    assert.deepEqual([final.audioStartMs, final.audioEndMs], [1500, 3000], "the server's audio cursor, in ms");
    assert.equal(events.filter((e) => e.kind === 'text_final').length, 1, 'speech_final never ends a client turn');
  });

  it('server turns: SpeechStarted opens an utterance, speech_final or UtteranceEnd ends it as a committed item', () => {
    const events = read('server', [
      JSON.stringify({ type: 'SpeechStarted', channel: [0], timestamp: 0.42 }),
      results('hello', 0, 1),
      results('hello there', 0, 1.6, { is_final: true, speech_final: true }),
      JSON.stringify({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: 1.55 }),
      JSON.stringify({ type: 'SpeechStarted', channel: [0], timestamp: 2.1 }),
      results('general', 1.6, 1.4, { is_final: true }),
      results('kenobi', 3, 0.6, { is_final: true }),
      JSON.stringify({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: 3.5 }),
    ]);
    assert.deepEqual(brief(events), [
      'speech_started@utterance-0',
      'text_delta~:hello@utterance-0',
      'text_delta:hello there@utterance-0',
      'speech_stopped@utterance-0',
      'committed@utterance-0',
      'text_final:hello there@utterance-0',
      'other',
      'speech_started@utterance-1',
      'text_delta:general@utterance-1',
      'text_delta: kenobi@utterance-1',
      'speech_stopped@utterance-1',
      'committed@utterance-1',
      'text_final:general kenobi@utterance-1',
    ]);
    assert.equal(events[0]!.audioStartMs, 420);
    assert.equal(events.filter((e) => e.kind === 'speech_stopped')[1]!.audioEndMs, 3500, "UtteranceEnd's last_word_end");
  });

  it("Metadata is kept as the server's report, Error ends the session, and a broken frame is a violation", () => {
    const [metadata] = read('client', [
      JSON.stringify({
        type: 'Metadata',
        transaction_key: 'deprecated',
        request_id: '8c8ebea9-dbec-45fa-a035-e4632cb05b5f',
        sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        created: '2024-08-29T22:37:55.202Z',
        duration: 12.5,
        channels: 1,
      }),
    ]);
    assert.deepEqual(metadata, {
      type: 'Metadata',
      kind: 'other',
      usage: { source: 'Metadata', values: { duration: 12.5, channels: 1 } },
      message: '8c8ebea9-dbec-45fa-a035-e4632cb05b5f',
    });
    const [error] = read('client', [
      JSON.stringify({ type: 'Error', variant: 'SchemaError', description: 'could not parse the message', message: '{"type":' }),
    ]);
    assert.deepEqual(error, { type: 'Error', kind: 'error', message: 'could not parse the message', code: 'SchemaError' });
    assert.throws(() => read('client', ['{"type":"Results","channel":{}}']), /channel\.alternatives\[0\]\.transcript/);
    assert.throws(() => read('client', ['not json']), /not JSON/);
    assert.throws(() => listenReader('client')(Buffer.from([1, 2]), true), /binary frame/);
  });

  it('names the error code a close reason carries, or only links to', () => {
    assert.equal(closeReasonCode('NET-0000: the server did not produce a transcript within the timeout window'), 'NET-0000');
    assert.equal(closeReasonCode('... See https://dpgr.am/net0001'), 'NET-0001');
    assert.equal(closeReasonCode('DATA-0000'), 'DATA-0000');
    assert.equal(closeReasonCode('going away'), undefined);
  });

  it('reads the client: binary audio, Finalize as the end of an input, KeepAlive and CloseStream as session controls', () => {
    assert.deepEqual(readDeepgramSent(Buffer.alloc(3200), true), { kind: 'audio', pcmBytes: 3200 });
    assert.deepEqual(readDeepgramSent(Buffer.from('{"type":"Finalize"}'), false), { kind: 'control', control: 'input_end' });
    assert.deepEqual(readDeepgramSent(Buffer.from('{"type":"KeepAlive"}'), false), { kind: 'control', control: 'heartbeat' });
    assert.deepEqual(readDeepgramSent(Buffer.from('{"type":"CloseStream"}'), false), { kind: 'control', control: 'session_close' });
    assert.deepEqual(readDeepgramSent(Buffer.from('oops'), false), { kind: 'other', type: '(invalid)' });
  });

  it('keeps the stream alive every few seconds of wall time and closes it with CloseStream', () => {
    const reactions = deepgramDialect({ model: 'm', turnDetection: CLIENT }).reactions!({ speed: 8 });
    assert.deepEqual(reactions.tick(1000), []);
    assert.deepEqual(reactions.tick(1000 + KEEPALIVE_MS - 1), [], 'not before KEEPALIVE_MS, whatever the pace');
    assert.deepEqual(reactions.tick(1000 + KEEPALIVE_MS), [{ frame: '{"type":"KeepAlive"}', control: 'heartbeat' }]);
    assert.ok(KEEPALIVE_MS < 10_000, 'well inside NET-0001');
    assert.deepEqual(reactions.closing(0), [{ frame: '{"type":"CloseStream"}', control: 'session_close' }]);
  });
});

const perInput = (sessions: HeldSession[], metric: string) => sessions.flatMap((s) => s.metrics.inputs.map((i) => i[metric]));

describe('deepgram: against the built-in server', () => {
  for (const turnDetection of [CLIENT, SERVER_VAD]) {
    it(`${turnDetection.type === 'none' ? 'client turns (Finalize)' : 'server turns (endpointing)'}: completed, WER 0, first partial and finalization measured`, async () => {
      const { report } = await run({ protocol: 'deepgram', turnDetection, turnsPerSession: 2, maxSessions: 2, pace: { kind: 'realtime', speed: 8 } });
      const sessions = report.benchmarks[0]!.sessions;
      assert.deepEqual(
        sessions.map((s) => s.outcome.status),
        ['completed', 'completed'],
      );
      assert.deepEqual(perInput(sessions, 'wer'), [0, 0, 0, 0]);
      for (const metric of ['ttft_ms', 'finalization_ms'])
        assert.ok(
          perInput(sessions, metric).every((v) => typeof v === 'number' && v > 0),
          metric,
        );
      const controls = sessions[0]!.timeline.sent.filter((f) => f.kind === 'control').map((f) => f.control);
      if (turnDetection.type === 'none') {
        assert.deepEqual(controls, ['input_end', 'input_end', 'session_close']);
        assert.ok(
          perInput(sessions, 'commit_to_flush_ms').every((v) => typeof v === 'number' && v > 0),
          'Finalize is an explicit flush',
        );
      } else {
        assert.equal(controls.at(-1), 'session_close');
        assert.ok(sessions[0]!.timeline.received.some((e) => e.type === 'SpeechStarted' && e.kind === 'speech_started'));
      }
      const finals = sessions[0]!.timeline.received.filter((e) => e.kind === 'text_final');
      assert.ok(
        finals.every((e) => e.audioEndMs !== undefined && e.audioEndMs > 0),
        "each final keeps the server's audio cursor",
      );
      assert.ok(sessions[0]!.timeline.sent.every((f) => f.kind !== 'audio' || f.bytes > 0));
      // CloseStream is answered by the last Results and Metadata, then the server's own close.
      const metadata = sessions[0]!.timeline.received.find((e) => e.type === 'Metadata')!;
      assert.ok(metadata.usage!.values.duration! > 4, "the server's count of the audio, seconds");
      assert.match(metadata.message!, /^[0-9a-f-]{36}$/, 'its request id');
      assert.deepEqual(
        sessions.map((s) => s.timeline.transport.kind === 'websocket' && [s.timeline.transport.close?.by, s.timeline.transport.close?.code]),
        [
          ['server', 1000],
          ['server', 1000],
        ],
      );
    });
  }
});

/** One input of `seconds` of silence, in 100 ms binary chunks. */
function silence(dialect: WebSocketDialect, seconds: number): PreparedTurn {
  const { chunks, audioMs } = chunkAudio(Buffer.alloc(seconds * 16_000 * 2), 16_000, 100, dialect);
  return { sampleId: 'silence', split: 'default', reference: null, chunks, audioMs, speechStartMs: 0, speechEndMs: audioMs, eosSource: 'audio_end' };
}

/** A server on port 0 scripted as a Deepgram stream would misbehave: `onSession` gets each connection. */
async function scripted(onSession: (ws: WebSocket) => void): Promise<string> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', onSession);
  after(() => {
    for (const client of server.clients) client.terminate();
    return new Promise((resolve) => server.close(resolve));
  });
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}${DEEPGRAM.path}`;
}

async function sessionAgainst(url: string): Promise<Extract<SessionOutcome, { status: 'failed' }>> {
  const dialect = deepgramDialect({ model: 'nova-3', turnDetection: CLIENT });
  const { outcome } = await runWebSocketSession({
    url,
    headers: {},
    dialect,
    inputs: [silence(dialect, 1)],
    pace: { kind: 'realtime', speed: 4 },
    plannedStartMs: 0,
    timeouts: { ...DEFAULT_TIMEOUTS, finalMs: 2_000 },
    clock: monotonicClock(),
  });
  assert.equal(outcome.status, 'failed');
  return outcome;
}

/** When the client's first audio arrives, `act` on the socket. */
const onFirstAudio = (act: (ws: WebSocket) => void) => (ws: WebSocket) => ws.once('message', () => act(ws));

describe('deepgram: a hostile server ends the session with the right class', () => {
  it('an Error message is a server error with its variant', async () => {
    const { failure } = await sessionAgainst(
      await scripted(onFirstAudio((ws) => ws.send(JSON.stringify({ type: 'Error', variant: 'ServerError', description: 'model unavailable' })))),
    );
    assert.equal(failure.class, 'server_error');
    assert.equal(failure.code, 'ServerError');
    assert.match(failure.message, /model unavailable/);
  });

  it('a close mid-stream with NET-0001 is an abnormal close that keeps its code and reason', async () => {
    const reason = 'Deepgram did not receive audio data or a text message within the timeout window. See https://dpgr.am/net0001';
    const { failure } = await sessionAgainst(await scripted(onFirstAudio((ws) => ws.close(1011, reason))));
    assert.equal(failure.class, 'abnormal_close');
    assert.equal(failure.closeCode, 1011);
    assert.equal(failure.code, 'NET-0001', 'named by its help link alone');
    assert.match(failure.message, /timeout window/);
  });

  it('DATA-0000 (undecodable audio) closes with 1002 and its reason', async () => {
    const { failure } = await sessionAgainst(await scripted(onFirstAudio((ws) => ws.close(1002, 'DATA-0000: the payload cannot be decoded as audio'))));
    assert.equal(failure.class, 'abnormal_close');
    assert.equal(failure.closeCode, 1002);
    assert.equal(failure.code, 'DATA-0000');
  });

  it('a malformed Results is a protocol violation', async () => {
    const { failure } = await sessionAgainst(await scripted(onFirstAudio((ws) => ws.send('{"type":"Results","is_final":true,"channel":{"alternatives":[]}}'))));
    assert.equal(failure.class, 'protocol_violation');
  });

  it('a CloseStream never answered costs a short grace, not the session', async () => {
    const dialect = deepgramDialect({ model: 'nova-3', turnDetection: CLIENT });
    const url = await scripted((ws) =>
      ws.on('message', (data, isBinary) => {
        if (!isBinary && messageText(data).includes('Finalize')) ws.send(results('', 0, 1, { is_final: true, from_finalize: true }));
      }),
    );
    const started = performance.now();
    const { outcome, timeline } = await runWebSocketSession({
      url,
      headers: {},
      dialect,
      inputs: [silence(dialect, 1)],
      pace: { kind: 'none' },
      plannedStartMs: 0,
      timeouts: DEFAULT_TIMEOUTS,
      clock: monotonicClock(),
    });
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(timeline.transport.kind === 'websocket' && timeline.transport.close?.by, 'client');
    assert.ok(performance.now() - started < 5_000);
  });

  it('a Finalize never answered times out waiting for the final', async () => {
    const { failure } = await sessionAgainst(await scripted(() => {}));
    assert.equal(failure.class, 'timeout');
    assert.equal(failure.stage, 'final');
  });

  it('the upgrade refused: 401 for a wrong key, 429 for too many streams', async () => {
    const server = await testServer({ apiKey: 'right', faults: [] });
    const options: RunOptions = { protocol: 'deepgram', maxSessions: 1, pace: { kind: 'none' }, model: DEEPGRAM.defaultModel };
    const origin = new URL(server.url).origin.replace(/^http/, 'ws');
    const wrong = await run({ ...options, target: origin, apiKey: 'wrong' });
    const failed = wrong.report.benchmarks[0]!.sessions[0]!.outcome;
    assert.equal(failed.status === 'failed' && failed.failure.class, 'upgrade_status');
    assert.equal(failed.status === 'failed' && failed.failure.httpStatus, 401);
    const right = await run({ ...options, target: origin, apiKey: 'right' });
    assert.equal(right.report.benchmarks[0]!.sessions[0]!.outcome.status, 'completed', 'the key as Authorization: Token');
    const busy = await testServer({ faults: [[{ name: 'upgrade', status: 429 }]] });
    const limited = await run({ ...options, target: new URL(busy.url).origin.replace(/^http/, 'ws') });
    const refused = limited.report.benchmarks[0]!.sessions[0]!.outcome;
    assert.equal(refused.status === 'failed' && refused.failure.httpStatus, 429);
  });
});

describe('deepgram: the proxy meters it', () => {
  for (const turnDetection of [CLIENT, SERVER_VAD]) {
    it(`tells the dialect by /v1/listen, who ends turns by its endpointing, and builds the timeline the benchmark did (${turnDetection.type})`, async () => {
      const server = await testServer();
      const dialects: string[] = [];
      const proxy = await startProxy({
        listen: { host: '127.0.0.1', port: 0 },
        upstream: new URL(server.url).origin.replace(/^http/, 'ws'),
        outputDir: await tempDir(),
        onSession: (_r, protocol) => dialects.push(protocol),
      });
      after(() => proxy.close());
      const { report } = await run({
        protocol: 'deepgram',
        model: DEEPGRAM.defaultModel,
        target: proxy.url,
        turnDetection,
        turnsPerSession: 2,
        maxSessions: 1,
        pace: { kind: 'realtime', speed: 8 },
      });
      const own = report.benchmarks[0]!.sessions[0]!;
      assert.equal(own.outcome.status, 'completed');
      for (let i = 0; i < 100 && dialects.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const { report: observed } = await proxy.close();
      assert.deepEqual(dialects, ['deepgram']);
      const seen = observed!.benchmarks[0]!.sessions[0]!;
      assert.equal(seen.outcome.status, 'completed');
      assert.equal(seen.timeline.turnDetection, own.timeline.turnDetection);
      const controls = (s: HeldSession) => s.timeline.sent.filter((f) => f.kind === 'control').map((f) => f.control);
      assert.deepEqual(controls(seen), controls(own));
      const finals = (s: HeldSession) => s.timeline.received.filter((e) => e.kind === 'text_final').map((e) => e.text);
      assert.deepEqual(finals(seen), finals(own));
      assert.ok(seen.timeline.received.some((e) => e.type === 'Metadata' && e.usage !== undefined));
      assert.equal(seen.timeline.inputs.length, 2);
      assert.deepEqual(
        seen.metrics.inputs.map((i) => typeof i.finalization_ms),
        ['number', 'number'],
      );
      assert.deepEqual(seen.timeline.counters, own.timeline.counters);
    });
  }
});
