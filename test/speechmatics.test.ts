import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type WebSocket from 'ws';
import { ProtocolViolation, type WebSocketDialect } from '../src/dialects/dialect.js';
import { createDialect, loadDialects, type Protocol } from '../src/dialects/index.js';
import { SPEECHMATICS } from '../src/dialects/speechmatics/spec.js';
import { wordEmissionLatencies } from '../src/metrics/emission.js';
import { startProxy } from '../src/proxy/proxy.js';
import type { HeldSession } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import { parseFaultScenario } from '../src/server/faults/faults.js';
import { sessionView } from '../src/views/session-view.js';
import { messageText, oneInputTimeline, rawServer, tempDir, testServer } from './helpers.js';

await loadDialects();

const dialect = createDialect('speechmatics', {
  model: 'enhanced',
  language: 'de',
  maxDelayMs: 1500,
  turnDetection: { type: 'none' },
  speech: { model: 'enhanced', responseFormat: 'pcm', streamFormat: 'audio', outputRate: 24_000 },
}) as WebSocketDialect;
const decode = (message: object) => dialect.decode(Buffer.from(JSON.stringify(message)), false);

/** A benchmark of `speechmatics` sessions against `target`, and its sessions. */
async function bench(target: string, options: Partial<RunOptions> = {}): Promise<HeldSession[]> {
  const { report } = await run({
    protocol: 'speechmatics',
    model: SPEECHMATICS.defaultModel,
    target,
    maxSessions: 1,
    pace: { kind: 'realtime', speed: 8 },
    ...options,
  });
  return report.benchmarks[0]!.sessions;
}

/**
 * A scripted Speechmatics server: it starts recognition and acknowledges each audio
 * frame, then, at the third, does what `strike` says.
 */
function scripted(strike: (send: (event: object) => void, ws: WebSocket) => void): Promise<string> {
  return rawServer((send, ws) => {
    let seq = 0;
    ws.on('message', (data, isBinary) => {
      if (!isBinary) {
        if ((JSON.parse(messageText(data)) as { message?: string }).message === 'StartRecognition') send({ message: 'RecognitionStarted', id: 'r1' });
        return;
      }
      send({ message: 'AudioAdded', seq_no: ++seq });
      if (seq === 3) strike(send, ws);
    });
  });
}

describe('speechmatics: the codec against the documented messages', () => {
  it('configures at open: StartRecognition names raw pcm_s16le at 16 kHz, the language and the model (not the deprecated operating_point), with partials', () => {
    assert.equal(dialect.configuresAtOpen, true);
    assert.equal(dialect.readyEvent, 'RecognitionStarted');
    assert.deepEqual(JSON.parse(dialect.sessionFrames()[0]!), {
      message: 'StartRecognition',
      audio_format: { type: 'raw', encoding: 'pcm_s16le', sample_rate: 16_000 },
      transcription_config: { language: 'de', model: 'enhanced', enable_partials: true, max_delay: 1.5 },
    });
    assert.equal(dialect.connectUrl('wss://eu2.rt.speechmatics.com'), 'wss://eu2.rt.speechmatics.com/v2');
    assert.equal(dialect.connectUrl('ws://host:9000/v2/en'), 'ws://host:9000/v2/en', 'a path given is kept');
    assert.deepEqual(JSON.parse(dialect.inputEndFrame()), { message: 'ForceEndOfUtterance' });
    const audio = Buffer.alloc(640);
    assert.equal(dialect.audioFrame(audio, { startMs: 0, endMs: 20 }), audio, 'audio is the binary frame itself (AddAudio)');
  });

  it('reads AddTranscript and AddPartialTranscript: the text, provisional or lasting, and where the server placed it', () => {
    const results = [
      { type: 'word', start_time: 0.84, end_time: 1.2, alternatives: [{ content: 'Hello', confidence: 0.98, language: 'en' }] },
      { type: 'punctuation', start_time: 1.2, end_time: 1.2, is_eos: true, attaches_to: 'previous', alternatives: [{ content: '.', confidence: 1 }] },
    ];
    const final = { message: 'AddTranscript', format: '2.9', metadata: { start_time: 0.84, end_time: 1.2, transcript: 'Hello. ' }, results };
    assert.deepEqual(decode(final), [
      { type: 'AddTranscript', kind: 'text_delta', channel: 'input_transcript', text: ' Hello.', audioStartMs: 840, audioEndMs: 1200 },
    ]);
    assert.deepEqual(decode({ ...final, message: 'AddPartialTranscript' })[0]!.provisional, true);
    assert.equal(decode({ message: 'AddTranscript', results })[0]!.text, ' Hello.', 'without metadata, the words of its results');
    assert.deepEqual(decode({ message: 'AddTranscript', metadata: { start_time: 2, end_time: 2, transcript: '' }, results: [] })[0]!.text, '');
  });

  it('reads RecognitionStarted, AudioAdded, EndOfUtterance, Info, Warning and Error', () => {
    assert.equal(decode({ message: 'RecognitionStarted', id: 'abc', language_pack_info: {} })[0]!.kind, 'ready');
    assert.deepEqual(decode({ message: 'AudioAdded', seq_no: 7 }), [{ type: 'AudioAdded', kind: 'progress', audioFrames: 7 }]);
    assert.deepEqual(decode({ message: 'EndOfUtterance', metadata: { start_time: 3.5, end_time: 3.5 } }), [
      { type: 'EndOfUtterance', kind: 'text_final', channel: 'input_transcript', audioStartMs: 3500, audioEndMs: 3500 },
    ]);
    assert.deepEqual(decode({ message: 'Warning', type: 'duration_limit_exceeded', reason: 'too long' })[0], {
      type: 'Warning',
      kind: 'other',
      code: 'duration_limit_exceeded',
      message: 'too long',
    });
    assert.equal(decode({ message: 'Info', type: 'recognition_quality', quality: 'broadcast', reason: 'ok' })[0]!.kind, 'other');
    assert.deepEqual(decode({ message: 'Error', type: 'not_authorised', reason: 'bad key' })[0], {
      type: 'Error',
      kind: 'error',
      scope: 'session',
      code: 'not_authorised',
      message: 'bad key',
    });
    assert.equal(decode({ message: 'EndOfTranscript' })[0]!.kind, 'other');
  });

  it('refuses a frame without a string "message", one that is not JSON, and binary frames', () => {
    assert.throws(() => decode({ type: 'AddTranscript' }), ProtocolViolation);
    assert.throws(() => dialect.decode(Buffer.from('{"message":"AddTr'), false), ProtocolViolation);
    assert.throws(() => dialect.decode(Buffer.from([1, 2, 3]), true), ProtocolViolation);
  });

  it("reads the client's frames for the proxy, and closes with EndOfStream naming the last frame acknowledged", () => {
    const read = dialect.readSent!;
    assert.deepEqual(read(Buffer.alloc(3200), true), { kind: 'audio', pcmBytes: 3200 });
    assert.deepEqual(read(Buffer.from(dialect.sessionFrames()[0]!), false), {
      kind: 'control',
      control: 'session_config',
      turnDetection: 'client',
      model: 'enhanced',
    });
    // A client of the current API names the model in `model`, an older one in `operating_point`: the proxy reads either.
    const start = (config: object): Buffer => Buffer.from(JSON.stringify({ message: 'StartRecognition', transcription_config: { language: 'en', ...config } }));
    assert.equal((read(start({ model: 'melia-1' }), false) as { model?: string }).model, 'melia-1');
    assert.equal((read(start({ operating_point: 'standard' }), false) as { model?: string }).model, 'standard');
    assert.equal((read(start({ model: 'melia-1', operating_point: 'enhanced' }), false) as { model?: string }).model, 'melia-1', 'model over operating_point');
    assert.deepEqual(read(Buffer.from(dialect.inputEndFrame()), false), { kind: 'control', control: 'input_end' });
    assert.deepEqual(read(Buffer.from('{"message":"EndOfStream","last_seq_no":3}'), false), { kind: 'control', control: 'session_close' });
    assert.deepEqual(read(Buffer.from('not json'), false), { kind: 'other', type: '(invalid)' });
    const reactions = dialect.reactions!({ speed: 1 });
    for (const seq of [1, 2, 3]) reactions.received({ t: seq, input: 0, type: 'AudioAdded', kind: 'progress', audioFrames: seq });
    assert.deepEqual(reactions.closing(10), [{ frame: '{"message":"EndOfStream","last_seq_no":3}', control: 'session_close' }]);
  });
});

describe('speechmatics: partials are provisional, the final is its AddTranscripts', () => {
  it('a turn: first text from the partial; transcript from the lasting words, word emission from the first partial that held each', () => {
    const text = (t: number, type: string, words: string, provisional = type === 'AddPartialTranscript') => ({
      t,
      input: 0,
      type,
      kind: 'text_delta' as const,
      channel: 'input_transcript' as const,
      text: words,
      ...(provisional ? { provisional: true as const } : {}),
    });
    const timeline = oneInputTimeline(
      {
        reference: 'hello world',
        words: [
          { word: 'hello', endMs: 100 },
          { word: 'world', endMs: 200 },
        ],
        speechEndMs: 200,
        audioEndMs: 200,
      },
      [
        { t: 10, input: 0, bytes: 3200, kind: 'audio', plannedMs: null, audioStartMs: 0, audioEndMs: 100 },
        { t: 20, input: 0, bytes: 3200, kind: 'audio', plannedMs: null, audioStartMs: 100, audioEndMs: 200 },
        { t: 30, input: 0, bytes: 30, kind: 'control', control: 'input_end' },
      ],
      [
        text(50, 'AddPartialTranscript', ' hello word'),
        text(80, 'AddTranscript', ' hello'),
        text(90, 'AddPartialTranscript', ' world'),
        text(120, 'AddTranscript', ' world.'),
        { t: 130, input: 0, type: 'EndOfUtterance', kind: 'text_final', channel: 'input_transcript' },
      ],
    );
    const [input] = sessionView(timeline).inputs;
    assert.equal(input!.transcript.text, 'hello world.');
    assert.equal(input!.transcript.textEvents[0]!.t, 50, 'the first text is the partial');
    assert.equal(input!.transcript.final!.t, 130);
    // hello stays from the first partial on; word is revised to world by the second partial, which lasts.
    assert.deepEqual(wordEmissionLatencies(input!), [50 - 10, 90 - 20], 'each word from the partial that first showed it as it lasted');
  });
});

describe('speechmatics: against the built-in server', () => {
  it('completes every sample with WER 0, first partial, finalization, commit-to-flush and word emission', async () => {
    const server = await testServer();
    const sessions = await bench(new URL('/', server.url).toString(), { maxSessions: 3 });
    assert.deepEqual(
      sessions.map((s) => s.outcome.status),
      ['completed', 'completed', 'completed'],
    );
    for (const session of sessions) {
      const [input] = session.metrics.inputs;
      assert.equal(input!.wer, 0);
      for (const name of ['ttft_ms', 'finalization_ms', 'commit_to_flush_ms']) assert.ok(input![name]! > 0, `${name} ${input![name]}`);
      const plan = session.timeline.inputs[0]!;
      const latencies = wordEmissionLatencies(sessionView(session.timeline).inputs[0]!);
      assert.equal(latencies.length, plan.kind === 'audio' ? plan.words?.length : -1, 'every word emitted once, by the AddTranscript that made it last');
      assert.ok(latencies.every((ms) => ms > 0));
      const { received, sent } = session.timeline;
      const firstText = received.find((e) => e.kind === 'text_delta' && e.text);
      assert.equal(firstText?.type, 'AddPartialTranscript', 'the first text is a partial');
      assert.equal(sent[0]!.control, 'session_config', 'StartRecognition went before RecognitionStarted came');
      assert.equal(sent[sent.length - 1]!.control, 'session_close', 'EndOfStream closes the session');
      assert.equal(session.metrics.session.audio_acked_ms, session.metrics.session.audio_sent_ms, 'every frame acknowledged, placed by its seq_no');
    }
  });

  it('unpaced, the AudioAdded acknowledgements hold the ack window: never more than --ack-window-ms of audio unacknowledged', async () => {
    const server = await testServer();
    const windowMs = 200;
    const sessions = await bench(new URL('/', server.url).toString(), { maxSessions: 2, pace: { kind: 'none' }, ackWindowMs: windowMs, turnsPerSession: 2 });
    for (const session of sessions) {
      assert.equal(session.outcome.status, 'completed');
      assert.deepEqual(
        session.metrics.inputs.map((i) => i.wer),
        [0, 0],
        'two utterances, each ended by ForceEndOfUtterance',
      );
      const acks = session.timeline.received.filter((e) => e.kind === 'progress');
      let sentEnd = 0;
      for (const frame of session.timeline.sent.filter((f) => f.kind === 'audio')) {
        const acked = Math.max(0, ...acks.filter((a) => a.t <= frame.t).map((a) => a.audioEndMs!));
        assert.ok(frame.audioEndMs! - acked <= windowMs || sentEnd <= acked, `frame to ${frame.audioEndMs} ms sent with ${acked} ms acknowledged`);
        sentEnd = frame.audioEndMs!;
      }
    }
  });

  it('--max-delay-ms goes as max_delay: within 0.7 to 4 s it runs, beyond it the server answers invalid_config', async () => {
    const origin = new URL('/', (await testServer()).url).toString();
    const [quick] = await bench(origin, { maxDelayMs: 700 });
    assert.equal(quick!.outcome.status, 'completed');
    const [slow] = await bench(origin, { maxDelayMs: 5000 });
    const failure = slow!.outcome.status === 'failed' ? slow!.outcome.failure : undefined;
    assert.equal(failure?.class, 'server_error');
    assert.equal(failure?.code, 'invalid_config');
  });

  it('a wrong key is refused at the upgrade (401)', async () => {
    const server = await testServer({ apiKey: 'right' });
    const [session] = await bench(new URL('/', server.url).toString(), { apiKey: 'wrong' });
    assert.equal(session!.outcome.status, 'failed');
    const failure = session!.outcome.status === 'failed' ? session!.outcome.failure : undefined;
    assert.equal(failure?.class, 'upgrade_status');
    assert.equal(failure?.httpStatus, 401);
  });
});

describe('speechmatics: hostile servers', () => {
  it("the built-in server's faults speak its wire: an injected Error, and a final that never comes", async () => {
    const origin = async (fault: string) => new URL('/', (await testServer({ faults: [parseFaultScenario(fault)] })).url).toString();
    const [errored] = await bench(await origin('error-event:job_error@streaming'));
    const failure = errored!.outcome.status === 'failed' ? errored!.outcome.failure : undefined;
    assert.equal(failure?.class, 'server_error');
    assert.equal(failure?.code, 'job_error');
    const [unfinished] = await bench(await origin('never-finalize'), { timeouts: { finalMs: 300 } });
    const timeout = unfinished!.outcome.status === 'failed' ? unfinished!.outcome.failure : undefined;
    assert.equal(timeout?.class, 'timeout');
    assert.equal(timeout?.stage, 'final');
  });

  it('an Error message ends the session as a server error with its type', async () => {
    const url = await scripted((send, ws) => {
      send({ message: 'Error', type: 'quota_exceeded', reason: 'Quota exceeded' });
      ws.close(4005, 'quota_exceeded');
    });
    const [session] = await bench(url);
    assert.equal(session!.outcome.status, 'failed');
    const failure = session!.outcome.status === 'failed' ? session!.outcome.failure : undefined;
    assert.equal(failure?.class, 'server_error');
    assert.equal(failure?.code, 'quota_exceeded');
    assert.match(failure.message, /Quota exceeded/);
  });

  it('a close mid-stream is an abnormal close with its code', async () => {
    const url = await scripted((_send, ws) => ws.close(1011, 'internal_error'));
    const [session] = await bench(url);
    const failure = session!.outcome.status === 'failed' ? session!.outcome.failure : undefined;
    assert.equal(failure?.class, 'abnormal_close');
    assert.equal(failure?.closeCode, 1011);
  });

  it('a malformed message is a protocol violation', async () => {
    const url = await scripted((send) => send({ type: 'AddTranscript', metadata: { transcript: 'x' } }));
    const [session] = await bench(url);
    const failure = session!.outcome.status === 'failed' ? session!.outcome.failure : undefined;
    assert.equal(failure?.class, 'protocol_violation');
    assert.match(failure.message, /"message"/);
  });
});

describe('speechmatics: through the proxy', () => {
  it('is told by its path /v2 and metered as the benchmark measured it', async () => {
    const server = await testServer();
    const dialects: Protocol[] = [];
    const proxy = await startProxy({
      listen: { host: '127.0.0.1', port: 0 },
      upstream: new URL(server.url).origin,
      outputDir: await tempDir(),
      onSession: (_r, protocol) => dialects.push(protocol),
    });
    after(() => proxy.close());
    const own = await bench(`${proxy.url}/`);
    const deadline = Date.now() + 5000;
    while (dialects.length < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const { report } = await proxy.close();
    const [seen] = report!.benchmarks[0]!.sessions;
    assert.deepEqual(dialects, [SPEECHMATICS.name]);
    assert.equal(seen!.outcome.status, 'completed');
    const controls = (s: HeldSession) => s.timeline.sent.map((f) => f.control ?? f.kind);
    assert.deepEqual(controls(seen!), controls(own[0]!), 'StartRecognition, the audio, ForceEndOfUtterance, EndOfStream');
    assert.equal(seen!.metrics.session.audio_acked_ms, own[0]!.metrics.session.audio_acked_ms, "AudioAdded placed by the proxy's count of frames");
    assert.ok(seen!.metrics.inputs[0]!.finalization_ms! > 0);
  });
});
