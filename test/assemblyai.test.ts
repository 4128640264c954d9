import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import WebSocket from 'ws';
import { resolveSettings } from '../src/config/settings.js';
import { assemblyaiDialect, turnDecoder } from '../src/dialects/assemblyai/client.js';
import { ASSEMBLYAI } from '../src/dialects/assemblyai/spec.js';
import { ProtocolViolation, type WebSocketDialect } from '../src/dialects/dialect.js';
import { authHeaders, keyAccepted } from '../src/dialects/spec.js';
import { startProxy } from '../src/proxy/proxy.js';
import type { HeldSession } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { sessionView } from '../src/views/session-view.js';
import { CLI, messageText, rawServer, runNode, tempDir, testServer } from './helpers.js';

const NONE = { type: 'none' } as const;
const SPEECH = { model: '', responseFormat: 'pcm', streamFormat: 'audio', outputRate: 24_000 } as const;
const dialect = (turnDetection: Parameters<typeof assemblyaiDialect>[0]['turnDetection'] = NONE): WebSocketDialect =>
  assemblyaiDialect({ model: 'universal-streaming-english', turnDetection, speech: SPEECH });
const frame = (event: object): Buffer => Buffer.from(JSON.stringify(event));
const word = (text: string, start: number, end: number, final = true) => ({ text, start, end, confidence: 0.9, word_is_final: final });
const turn = (order: number, transcript: string, words: object[], extra: object = {}) => ({
  type: 'Turn',
  turn_order: order,
  turn_is_formatted: false,
  end_of_turn: false,
  end_of_turn_confidence: 0.02,
  transcript,
  words,
  ...extra,
});

describe('assemblyai codec: the documented messages', () => {
  it('reads a turn: restated partials as deltas of their new finalized words, pending words as provisional text, the first end_of_turn as the final, its formatted copy kept apart', () => {
    const decode = turnDecoder();
    const kinds = (events: ReturnType<typeof decode>) => events.map((e) => [e.kind, e.text ?? null, e.provisional ?? false]);
    assert.deepEqual(decode(frame({ type: 'Begin', id: 'de5d9927-73a6-4be8-b52d-b4c07be37e6b', expires_at: 1759796682 }), false), [
      { type: 'Begin', kind: 'ready' },
    ]);
    // A pending word is text shown, provisional until a later Turn makes it final; the turn's speech has started, at its first word's start.
    // The documented message sequence (a user saying "hi my name is sonny"), words in ms of the session's audio.
    const first = decode(frame(turn(0, '', [word('hi', 1920, 2000, false)])), false);
    assert.deepEqual(kinds(first), [
      ['speech_started', null, false],
      ['text_delta', 'hi', true],
    ]);
    assert.equal(first[0]!.audioStartMs, 1920);
    assert.equal(first[0]!.itemId, 'turn-0');
    assert.deepEqual(kinds(decode(frame(turn(0, 'hi my', [word('hi', 1920, 2000), word('my', 2800, 2880), word('name', 2960, 3040, false)])), false)), [
      ['text_delta', 'hi my', false],
      ['text_delta', ' name', true],
    ]);
    assert.deepEqual(kinds(decode(frame(turn(0, 'hi my', [word('hi', 1920, 2000), word('my', 2800, 2880)])), false)), [['other', null, false]], 'nothing new');
    const ended = decode(
      frame(
        turn(
          0,
          'hi my name is sonny',
          [word('hi', 1920, 2000), word('my', 2800, 2880), word('name', 2960, 3040), word('is', 3120, 3200), word('sonny', 3280, 3680)],
          {
            end_of_turn: true,
            end_of_turn_confidence: 0.91,
            speaker_label: 'A',
          },
        ),
      ),
      false,
    );
    assert.deepEqual(kinds(ended), [
      ['text_delta', ' name is sonny', false],
      ['speech_stopped', null, false],
      ['committed', null, false],
      ['text_final', 'hi my name is sonny', false],
    ]);
    assert.equal(ended[1]!.audioEndMs, 3680, "the last word's end, the server's own position");
    assert.deepEqual(ended[3]!.usage, { source: 'Turn', values: { end_of_turn_confidence: 0.91, turn_order: 0 } });
    assert.equal(ended[3]!.speaker, 'A', 'the raw speaker label is kept');
    const formatted = decode(frame(turn(0, 'Hi, my name is Sonny.', [], { end_of_turn: true, turn_is_formatted: true })), false);
    assert.deepEqual(kinds(formatted), [['other', 'Hi, my name is Sonny.', false]], 'never a second final');
    // The next turn starts afresh.
    assert.deepEqual(kinds(decode(frame(turn(1, 'okay', [word('okay', 4000, 4300)])), false)), [
      ['speech_started', null, false],
      ['text_delta', 'okay', false],
    ]);
  });

  it("keeps Termination's durations as the server's own report, and reads errors new and old", () => {
    const decode = turnDecoder();
    assert.deepEqual(decode(frame({ type: 'Termination', audio_duration_seconds: 2.8, session_duration_seconds: 3.1 }), false), [
      { type: 'Termination', kind: 'other', usage: { source: 'Termination', values: { audio_duration_seconds: 2.8, session_duration_seconds: 3.1 } } },
    ]);
    assert.deepEqual(decode(frame({ type: 'Error', error_code: 3008, error: 'Session Expired: Maximum session duration exceeded' }), false), [
      { type: 'Error', kind: 'error', scope: 'session', message: 'Session Expired: Maximum session duration exceeded', code: '3008' },
    ]);
    assert.deepEqual(decode(frame({ error: 'Invalid Message Type: Nope' }), false), [
      { type: '(error)', kind: 'error', scope: 'session', message: 'Invalid Message Type: Nope' },
    ]);
  });

  it('refuses malformed frames as protocol violations', () => {
    const decode = turnDecoder();
    for (const bad of [Buffer.from('{"type":"Turn","transcript":"x","end_of_turn":false}'), Buffer.from('not json'), Buffer.from('[1]'), frame({ id: 1 })]) {
      assert.throws(() => decode(bad, false), ProtocolViolation, bad.toString());
    }
    assert.throws(() => decode(frame(turn(0, 'a', 'nope' as unknown as object[])), false), ProtocolViolation);
    assert.throws(() => decode(Buffer.alloc(4), true), /binary frame/);
  });

  it('connects with its query options, sends binary audio of at least 50 ms, and reads what a client sends', () => {
    const client = dialect();
    const url = new URL(client.connectUrl('wss://streaming.assemblyai.com/'));
    assert.equal(url.pathname, '/v3/ws');
    assert.deepEqual(Object.fromEntries(url.searchParams), { sample_rate: '16000', encoding: 'pcm_s16le', speech_model: 'universal-streaming-english' });
    const own = new URL(client.connectUrl('wss://streaming.assemblyai.com/v3/ws?format_turns=true&token=t&sample_rate=16000'));
    assert.equal(own.searchParams.get('format_turns'), 'true');
    assert.equal(own.searchParams.get('token'), 't');
    const vad = new URL(dialect({ type: 'server_vad', threshold: 0.3, prefixPaddingMs: 0, silenceDurationMs: 700 }).connectUrl('ws://h/v3/ws'));
    assert.deepEqual([vad.searchParams.get('vad_threshold'), vad.searchParams.get('max_turn_silence')], ['0.3', '700']);
    const low = new URL(dialect({ type: 'semantic_vad', eagerness: 'low' }).connectUrl('ws://h/v3/ws'));
    assert.equal(low.searchParams.get('end_of_turn_confidence_threshold'), '0.9');
    assert.equal(dialect({ type: 'semantic_vad', eagerness: 'low' }).turnDetection, 'server');
    assert.equal(client.turnDetection, 'client');
    const short = client.audioFrame(Buffer.alloc(640, 1), { startMs: 0, endMs: 20 }) as Buffer;
    assert.equal(short.length, 1600, '20 ms padded with silence to the 50 ms the service takes');
    assert.equal(client.audioFrame(Buffer.alloc(3200), { startMs: 0, endMs: 100 }).length, 3200);
    assert.equal(client.inputEndFrame(), '{"type":"ForceEndpoint"}');
    const read = client.readSent!;
    assert.deepEqual(read(Buffer.alloc(3200), true), { kind: 'audio', pcmBytes: 3200 });
    assert.deepEqual(read(frame({ type: 'ForceEndpoint' }), false), { kind: 'control', control: 'input_end' });
    assert.deepEqual(read(frame({ type: 'UpdateConfiguration', max_turn_silence: 500 }), false), { kind: 'control', control: 'session_update' });
    assert.deepEqual(read(frame({ type: 'Terminate' }), false), { kind: 'control', control: 'session_close' });
    assert.deepEqual(authHeaders('plain', 'k'), { authorization: 'k' });
    assert.ok(keyAccepted(ASSEMBLYAI, { headers: { authorization: 'k' } }, 'k') && !keyAccepted(ASSEMBLYAI, { headers: { authorization: 'Bearer k' } }, 'k'));
  });

  it('refuses a --chunk-ms outside 50 to 1000 ms in one line', async () => {
    assert.throws(
      () => resolveSettings({ protocol: 'assemblyai', chunkMs: 20 }),
      /chunkMs 20 is outside the 50-1000 ms protocol assemblyai takes per message .*3007/,
    );
    assert.equal(resolveSettings({ protocol: 'assemblyai', chunkMs: 50 }).chunkMs, 50);
    const cli = await runNode([CLI, 'run', '--protocol', 'assemblyai', '--chunk-ms', '2000']);
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /--chunk-ms 2000 is outside the 50-1000 ms/);
    assert.equal(cli.stderr.trim().split('\n').length, 1, cli.stderr);
  });
});

/** Origin of a running server, as a ws:// URL. */
const wsOrigin = (url: string): string => new URL(url).origin.replace(/^http/, 'ws');
const FAST = { kind: 'realtime', speed: 8 } as const;
const perInput = (session: HeldSession, metric: string): Array<number | undefined> => session.metrics.inputs.map((i) => i[metric]);

describe('assemblyai against the built-in server', () => {
  it('client commits: ForceEndpoint ends each input; finals with WER 0, first text, finalization and commit to flush; the formatted copy and confidences kept', async () => {
    const server = await testServer({ apiKey: 'aai-key' });
    const { report } = await run({
      target: `${wsOrigin(server.url)}/v3/ws?format_turns=true`,
      protocol: 'assemblyai',
      model: 'universal-streaming-english',
      apiKey: 'aai-key',
      turnsPerSession: 2,
      maxSessions: 2,
      pace: FAST,
    });
    const sessions = report.benchmarks[0]!.sessions;
    assert.deepEqual(
      sessions.map((s) => s.outcome),
      [{ status: 'completed' }, { status: 'completed' }],
    );
    for (const session of sessions) {
      assert.deepEqual(perInput(session, 'wer'), [0, 0]);
      for (const metric of ['ttft_ms', 'finalization_ms', 'commit_to_flush_ms'])
        assert.ok(
          perInput(session, metric).every((v) => v! > 0),
          metric,
        );
      const { received, sent } = session.timeline;
      assert.deepEqual(
        sent.filter((f) => f.kind === 'control').map((f) => f.control),
        ['input_end', 'input_end', 'session_close'],
      );
      const finals = received.filter((e) => e.kind === 'text_final');
      assert.equal(finals.length, 2);
      assert.ok(finals.every((f) => f.usage?.values.end_of_turn_confidence === 1));
      const formatted = received.filter((e) => e.kind === 'other' && e.type === 'Turn' && e.text);
      // Capitalized, with one full stop: the samples' text ends with its own.
      assert.deepEqual(
        formatted.map((e) => e.text),
        finals.map((f) => `${f.text![0]!.toUpperCase()}${f.text!.slice(1)}`.replace(/[^.!?]$/, '$&.')),
      );
      assert.ok(
        formatted.every((e) => !e.text!.endsWith('..')),
        formatted.map((e) => e.text).join(' | '),
      );
      assert.ok(received.some((e) => e.kind === 'speech_started' && e.audioStartMs! >= 0));
    }
  });

  it("server turns (server_vad): the server's silence ends each turn, a mid-stream UpdateConfiguration is taken, and a ForceEndpoint flushes the last", async () => {
    const server = await testServer();
    const { report } = await run({
      target: `${wsOrigin(server.url)}/v3/ws`,
      protocol: 'assemblyai',
      model: 'universal-streaming-english',
      turnDetection: { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 300 },
      turnsPerSession: 3,
      padding: { gapMs: 500 },
      updateAtMs: 1000,
      maxSessions: 1,
      pace: FAST,
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(session.outcome, { status: 'completed' });
    assert.equal(session.timeline.turnDetection, 'server');
    assert.deepEqual(
      session.timeline.sent.flatMap((f) => f.control ?? []),
      ['session_update', 'flush', 'session_close'],
      'an UpdateConfiguration the server takes, and a ForceEndpoint for the speech still running',
    );
    assert.deepEqual(perInput(session, 'wer'), [0, 0, 0]);
    assert.ok(perInput(session, 'finalization_ms').every((v) => v !== undefined));
  });

  it("server turns: a ForceEndpoint racing the VAD's end of turn gets an empty turn, which is no part of the input", async () => {
    // The client sees the turn open until its end-of-turn Turn arrives, the finalize time (here 400 ms) after the
    // VAD ended it: the stream ends inside that (the VAD's stop falls in the trail's last 200 ms), so the client
    // flushes a turn already ended, and the idle time after the last turn waits for the answer, an empty turn.
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, finalizeMs: 400, jitterMs: 0 } });
    const { report } = await run({
      target: `${wsOrigin(server.url)}/v3/ws`,
      protocol: 'assemblyai',
      model: 'universal-streaming-english',
      turnDetection: { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 300 },
      padding: { trailMs: 500 },
      idleMs: 300,
      maxSessions: 1,
      pace: FAST,
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(session.outcome, { status: 'completed' });
    const finals = session.timeline.received.filter((e) => e.kind === 'text_final').map((e) => e.text);
    assert.equal(finals.length, 2, `the race took place, and the flush was answered: ${JSON.stringify(finals)}`);
    assert.equal(finals[1], '');
    const input = sessionView(session.timeline).inputs[0]!;
    assert.deepEqual(
      input.transcript.finals.map((f) => f.text),
      [finals[0]],
    );
    assert.deepEqual(perInput(session, 'wer'), [0]);
    assert.deepEqual(perInput(session, 'commit_to_flush_ms'), [undefined], 'the VAD ended the turn, not the flush');
    assert.equal(session.metrics.session.protocol_anomalies, 0);
  });

  it('refuses a wrong key at the upgrade, and answers a message of 20 ms with 3007 and its close', async () => {
    const server = await testServer({ apiKey: 'aai-key' });
    const { report } = await run({ target: `${wsOrigin(server.url)}/v3/ws`, protocol: 'assemblyai', model: 'm', apiKey: 'wrong', maxSessions: 1, pace: FAST });
    assert.deepEqual(report.benchmarks[0]!.sessions[0]!.outcome, {
      status: 'failed',
      failure: {
        class: 'upgrade_status',
        stage: 'connect',
        httpStatus: 401,
        message:
          'server answered the WebSocket upgrade with HTTP 401 Unauthorized (the API key sent came from the apiKey option; assemblyai reads ASSEMBLYAI_API_KEY, else VOXBENCH_API_KEY (or the variable --api-key-env names))',
      },
    });
    const ws = new WebSocket(`${wsOrigin(server.url)}/v3/ws?sample_rate=16000`, { headers: { authorization: 'aai-key' } });
    const messages: string[] = [];
    ws.on('message', (data) => messages.push(messageText(data)));
    await new Promise((resolve) => ws.once('message', resolve));
    ws.send(Buffer.alloc(640), { binary: true });
    const code = await new Promise((resolve) => ws.once('close', resolve));
    assert.equal(code, 3007);
    assert.deepEqual(JSON.parse(messages[1]!), { type: 'Error', error_code: 3007, error: 'Input duration violation: 20 ms. Expected between 50 and 1000 ms' });
  });
});

describe('assemblyai against a hostile server', () => {
  /** One session against a scripted server: `Begin`, then `onAudio` on the nth binary message. */
  async function against(script: (ws: WebSocket, audioFrames: number) => void, begin = true): Promise<HeldSession> {
    const url = await rawServer((send, ws) => {
      if (begin) send({ type: 'Begin', id: 'x', expires_at: 0 });
      let frames = 0;
      ws.on('message', (_data, binary) => binary && script(ws, ++frames));
      if (!begin) script(ws, 0);
    });
    const options: RunOptions = {
      target: url,
      protocol: 'assemblyai',
      model: 'm',
      maxSessions: 1,
      pace: { kind: 'none' },
      timeouts: { readyMs: 2000, finalMs: 2000 },
    };
    return (await run(options)).report.benchmarks[0]!.sessions[0]!;
  }

  it('an Error message fails the session with its code (server_error), before the close that follows', async () => {
    const session = await against((ws, n) => {
      if (n !== 3) return;
      ws.send(JSON.stringify({ type: 'Error', error_code: 3009, error: 'Unauthorized Connection: Too many concurrent sessions' }));
      ws.close(3009, 'Unauthorized Connection: Too many concurrent sessions');
    });
    assert.equal(session.outcome.status, 'failed');
    assert.deepEqual(session.outcome.status === 'failed' && [session.outcome.failure.class, session.outcome.failure.code], ['server_error', '3009']);
  });

  it('an account refused after the upgrade (close 1008) is an abnormal close naming the reason', async () => {
    const session = await against((ws) => ws.close(1008, 'Unauthorized Connection: Missing Authorization header'), false);
    assert.ok(session.outcome.status === 'failed');
    const { failure } = session.outcome;
    assert.deepEqual([failure.class, failure.closeCode], ['abnormal_close', 1008]);
    assert.match(failure.message, /Missing Authorization header/);
  });

  it('a close mid-stream ends the session as the close says', async () => {
    const session = await against((ws, n) => n === 2 && ws.close(1011, 'Session Cancelled'));
    assert.ok(session.outcome.status === 'failed');
    assert.deepEqual([session.outcome.failure.class, session.outcome.failure.closeCode, session.outcome.failure.stage], ['abnormal_close', 1011, 'streaming']);
  });

  it('a malformed Turn is a protocol violation', async () => {
    const session = await against((ws, n) => n === 1 && ws.send(JSON.stringify({ type: 'Turn', transcript: 'hi', end_of_turn: true })));
    assert.ok(session.outcome.status === 'failed');
    assert.equal(session.outcome.failure.class, 'protocol_violation');
    assert.match(session.outcome.failure.message, /turn_order/);
  });
});

describe('voxbench proxy: assemblyai', () => {
  it('meters it by its path, with the turns the service detects (a ForceEndpoint is the flush), as the benchmark measured it', async () => {
    const server = await testServer();
    const observed: string[] = [];
    const proxy = await startProxy({
      listen: { host: '127.0.0.1', port: 0 },
      upstream: wsOrigin(server.url),
      outputDir: await tempDir(),
      onSession: (_r, protocol) => observed.push(protocol),
    });
    after(() => proxy.close());
    const { report } = await run({
      target: `${proxy.url}/v3/ws`,
      protocol: 'assemblyai',
      model: 'universal-streaming-english',
      turnDetection: { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 300 },
      turnsPerSession: 2,
      padding: { gapMs: 500 },
      maxSessions: 2,
      pace: FAST,
    });
    const deadline = Date.now() + 5000;
    while ((proxy.open() > 0 || observed.length < 2) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const { report: seen } = await proxy.close();
    assert.deepEqual(observed, ['assemblyai', 'assemblyai']);
    const own = report.benchmarks[0]!.sessions;
    const metered = seen!.benchmarks[0]!.sessions;
    assert.equal(seen!.config.model, 'universal-streaming-english', 'from the query');
    const shape = (s: HeldSession) => ({
      status: s.outcome.status,
      turns: s.timeline.turnDetection,
      inputs: s.timeline.inputs.length,
      controls: s.timeline.sent.flatMap((f) => f.control ?? []),
      bytesSent: s.timeline.counters.bytesSent,
      finals: s.timeline.received.filter((e) => e.kind === 'text_final').map((e) => e.text),
    });
    // The proxy knows no reference transcripts: the same finals stand for the same WER.
    assert.deepEqual(metered.map(shape), own.map(shape));
    assert.deepEqual(
      own.map((s) => perInput(s, 'wer')),
      [
        [0, 0],
        [0, 0],
      ],
    );
    assert.ok(metered.every((s) => perInput(s, 'ttft_ms').every((v) => v! > 0)));
  });
});
