import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type WebSocket from 'ws';
import { ProtocolViolation, type WebSocketDialect } from '../src/dialects/dialect.js';
import { createDialect, loadDialects } from '../src/dialects/index.js';
import { interpretScribeMessage, readScribeSent } from '../src/dialects/elevenlabs-scribe/client.js';
import { ELEVENLABS_SCRIBE, SCRIBE_ERRORS } from '../src/dialects/elevenlabs-scribe/spec.js';
import { resolveApiKey } from '../src/config/api-key.js';
import { poolMetricValues } from '../src/metrics/compute.js';
import { parseFaultScenario } from '../src/server/faults/faults.js';
import { run, type RunOptions } from '../src/run/run.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { sessionView } from '../src/views/session-view.js';
import type { ReceivedFrame } from '../src/timeline/types.js';
import { messageText, oneInputTimeline, rawServer, testServer } from './helpers.js';

await loadDialects();

const PROTOCOL = 'elevenlabs-scribe';
const MODEL = ELEVENLABS_SCRIBE.defaultModel;
const REFERENCES = ['The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.', "It's easy to tell the depth of a well."];
const SERVER_VAD = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } as const;

const dialect = (turnDetection: RunOptions['turnDetection'] = { type: 'none' }, language?: string): WebSocketDialect =>
  createDialect(PROTOCOL, {
    model: MODEL,
    turnDetection: turnDetection,
    ...(language !== undefined ? { language } : {}),
    speech: { model: MODEL, responseFormat: 'pcm', streamFormat: 'audio', outputRate: 24_000 },
  }) as WebSocketDialect;
const origin = (url: string): string => new URL(url).origin;
const finals = (events: ReceivedFrame[]) => events.filter((e) => e.kind === 'text_final').map((e) => e.text);
/** One session against `target` (the built-in server when undefined), at 8 times real time unless said. */
async function session(target: string | undefined, options: Partial<RunOptions> = {}) {
  const { report } = await run({
    ...(target !== undefined ? { target } : {}),
    protocol: PROTOCOL,
    model: MODEL,
    maxSessions: 1,
    pace: { kind: 'realtime', speed: 8 },
    ...options,
  });
  return report.benchmarks[0]!.sessions[0]!;
}

describe('elevenlabs-scribe codec, against the documented messages', () => {
  it('session_started is ready, and the configuration it echoes is kept as what Scribe reports', () => {
    // The example of ElevenLabs' realtime event reference (elevenlabs/skills, speech-to-text/references/realtime-events.md).
    const event = interpretScribeMessage(
      '{"message_type":"session_started","session_id":"0b0a72b57fd743ebbed6555d44836cf2","config":{"sample_rate":16000,"audio_format":"pcm_16000","language_code":"en","model_id":"scribe_v2_realtime","commit_strategy":"manual","enable_logging":true,"include_timestamps":true}}',
    );
    assert.deepEqual(event, { type: 'session_started', kind: 'ready', usage: { source: 'session_started.config', values: { sample_rate: 16000 } } });
  });

  it('partials restate the text since the last commit; committed transcripts are the finals; the timestamped echo keeps its word times', () => {
    assert.deepEqual(interpretScribeMessage('{"message_type":"partial_transcript","text":"Hello, how are"}'), {
      type: 'partial_transcript',
      kind: 'text_delta',
      channel: 'input_transcript',
      text: 'Hello, how are',
      provisional: true,
    });
    assert.deepEqual(interpretScribeMessage('{"message_type":"committed_transcript","text":"Hello, how are you?"}'), {
      type: 'committed_transcript',
      kind: 'text_final',
      channel: 'input_transcript',
      text: 'Hello, how are you?',
    });
    const words = [
      { text: 'Hello,', start: 0.12, end: 0.5, type: 'word', logprob: -0.25 },
      { text: ' ', start: 0.5, end: 0.52, type: 'spacing' },
      { text: 'you', start: 0.52, end: 0.8, type: 'word', logprob: -0.75, speaker_id: 'speaker_0' },
    ];
    const timed = interpretScribeMessage(
      JSON.stringify({ message_type: 'committed_transcript_with_timestamps', text: 'Hello, you', language_code: 'en', words }),
    );
    assert.equal(timed.kind, 'other', 'the echo of a final already counted, never a second final');
    assert.deepEqual(timed.usage, { source: 'committed_transcript_with_timestamps', values: { words: 2, start: 0.12, end: 0.8, logprob_mean: -0.5 } });
    assert.deepEqual(interpretScribeMessage('{"message_type":"final_transcript","text":"x"}'), { type: 'final_transcript', kind: 'other' });
  });

  it('every error type its SDK lists is an error with the type as its code (unaccepted terms in both spellings)', () => {
    for (const type of ['auth_error', 'quota_exceeded', 'rate_limited', 'invalid_request', 'unaccepted_terms', 'unaccepted_terms_error', 'error']) {
      assert.ok(SCRIBE_ERRORS.has(type));
      assert.deepEqual(interpretScribeMessage(JSON.stringify({ message_type: type, error: `${type} happened` })), {
        type,
        kind: 'error',
        code: type,
        message: `${type} happened`,
        scope: 'session',
      });
    }
  });

  it('a frame that is not JSON, or has no message_type, or is binary, is a protocol violation', () => {
    assert.throws(() => interpretScribeMessage('nope'), ProtocolViolation);
    assert.throws(() => interpretScribeMessage('{"type":"partial_transcript","text":"x"}'), /without a string "message_type"/);
    assert.throws(() => dialect().decode(Buffer.from([1, 2]), true), /binary frame/);
  });

  it("connects with its options in the query, leaving the target's own, and frames audio and commits as its SDK does", () => {
    const manual = new URL(dialect().connectUrl('wss://api.elevenlabs.io'));
    assert.equal(manual.pathname, ELEVENLABS_SCRIBE.path);
    assert.deepEqual(Object.fromEntries(manual.searchParams), {
      model_id: MODEL,
      audio_format: 'pcm_16000',
      commit_strategy: 'manual',
      include_timestamps: 'true',
    });
    const vad = new URL(dialect(SERVER_VAD, 'en').connectUrl('ws://h/v1/speech-to-text/realtime?include_timestamps=false&commit_strategy=manual'));
    assert.deepEqual(Object.fromEntries(vad.searchParams), {
      include_timestamps: 'false',
      commit_strategy: 'vad',
      model_id: MODEL,
      audio_format: 'pcm_16000',
      vad_threshold: '0.5',
      vad_silence_threshold_secs: '0.5',
      language_code: 'en',
    });
    const d = dialect();
    assert.deepEqual(JSON.parse(d.audioFrame(Buffer.from([1, 0, 2, 0]), { startMs: 0, endMs: 1 }) as string), {
      message_type: 'input_audio_chunk',
      audio_base_64: 'AQACAA==',
      commit: false,
      sample_rate: 16000,
    });
    assert.deepEqual(JSON.parse(d.inputEndFrame()), { message_type: 'input_audio_chunk', audio_base_64: '', commit: true, sample_rate: 16000 });
    assert.equal(d.flushFrame(), d.inputEndFrame());
  });

  it("reads the client's chunks for the proxy: audio by its size, a commit as the end of input, the rest by type", () => {
    const d = dialect();
    const read = (frame: string) => readScribeSent(Buffer.from(frame), false);
    assert.deepEqual(read(d.audioFrame(Buffer.alloc(3200), { startMs: 0, endMs: 100 }) as string), { kind: 'audio', pcmBytes: 3200 });
    assert.deepEqual(read(d.inputEndFrame()), { kind: 'control', control: 'input_end' });
    assert.deepEqual(read('{"commit":false,"audio_base_64":"AAAA","message_type":"input_audio_chunk"}'), { kind: 'audio', pcmBytes: 3 });
    assert.deepEqual(read('{"message_type":"something_else"}'), { kind: 'other', type: 'something_else' });
    assert.deepEqual(read('not json'), { kind: 'other', type: '(invalid)' });
    assert.deepEqual(readScribeSent(Buffer.alloc(4), true), { kind: 'other', type: '(binary)' });
  });

  it('reads its key from ELEVENLABS_API_KEY, as ElevenLabs clients do', () => {
    assert.equal(resolveApiKey({ protocol: PROTOCOL }, { ELEVENLABS_API_KEY: 'xi', VOXBENCH_API_KEY: 'vb' }), 'xi');
  });
});

describe('elevenlabs-scribe word emission', () => {
  it('times each word from the partial it first appeared in and stayed, a revised word from its revision', () => {
    const timeline = oneInputTimeline(
      {
        reference: 'hello world again',
        words: [
          { word: 'hello', endMs: 90 },
          { word: 'world', endMs: 180 },
          { word: 'again', endMs: 240 },
        ],
        speechEndMs: 240,
        audioEndMs: 300,
      },
      [0, 1, 2].map((i) => ({ t: 10 + 100 * i, input: 0, bytes: 3200, kind: 'audio' as const, audioStartMs: 100 * i, audioEndMs: 100 * (i + 1) })),
      [
        { t: 150, input: 0, type: 'partial_transcript', kind: 'text_delta', text: 'Hello', provisional: true },
        { t: 250, input: 0, type: 'partial_transcript', kind: 'text_delta', text: 'Hello word', provisional: true },
        { t: 300, input: 0, type: 'partial_transcript', kind: 'text_delta', text: 'Hello world again', provisional: true },
        { t: 400, input: 0, type: 'committed_transcript', kind: 'text_final', text: 'Hello world again.' },
      ],
    );
    timeline.sent.push({ t: 220, input: 0, bytes: 80, kind: 'control', control: 'input_end' });
    // Read as deltas, "Hello word" and the restatements would add words never said and time "world" at its first guess.
    assert.deepEqual(poolMetricValues([timeline]).word_emission_ms, [150 - 10, 300 - 110, 300 - 210]);
  });
});

describe('elevenlabs-scribe against the built-in server', () => {
  it('manual commits: a committed transcript per turn, WER 0, with first partial, finalization, commit-to-flush and word emission', async () => {
    // The built-in server a run hosts when it is given no target: the dialect finds its path on its root.
    const s = await session(undefined, { turnsPerSession: 3, padding: { gapMs: 300 } });
    assert.deepEqual(s.outcome, { status: 'completed' });
    assert.equal(s.timeline.turnDetection, 'client');
    assert.deepEqual(finals(s.timeline.received), REFERENCES);
    assert.deepEqual(
      s.timeline.sent.filter((f) => f.kind === 'control').map((f) => `${f.input}:${f.control}`),
      ['0:input_end', '1:input_end', '2:input_end'],
    );
    for (const input of s.metrics.inputs) {
      assert.equal(input.wer, 0);
      assert.ok(input.ttft_ms! > 0 && input.ttft_ms! < input.turn_ms!, `first partial ${input.ttft_ms}`);
      assert.ok(input.commit_to_flush_ms! > 0 && input.finalization_ms! >= input.commit_to_flush_ms!);
    }
    const emission = poolMetricValues([s.timeline]).word_emission_ms!;
    assert.equal(emission.length, REFERENCES.join(' ').split(' ').length, 'every word, once');
    assert.ok(
      emission.every((ms) => ms > 0),
      emission.join(', '),
    );
    // What Scribe says of itself stays on its events, beside the figures.
    assert.deepEqual(s.timeline.received[0]!.usage?.values, { sample_rate: 16000, vad_silence_threshold_secs: 1.5, vad_threshold: 0.4 });
    const timed = s.timeline.received.filter((e) => e.type === 'committed_transcript_with_timestamps');
    // The last turn's echo may come after the session has ended on its committed transcript.
    assert.ok(timed.length >= 2, `${timed.length} timestamped echoes`);
    assert.deepEqual(
      timed.map((e) => e.usage?.values.words),
      [8, 8, 9].slice(0, timed.length),
    );
  });

  it('VAD commits: the server ends each utterance, and the stream end is flushed with a commit while speech is uncommitted', async () => {
    const server = await testServer();
    const s = await session(origin(server.url), { turnDetection: SERVER_VAD, turnsPerSession: 2, waitForAnswer: true, padding: { trailMs: 100 } });
    assert.deepEqual(s.outcome, { status: 'completed' });
    assert.equal(s.timeline.turnDetection, 'server');
    assert.deepEqual(finals(s.timeline.received), REFERENCES.slice(0, 2));
    assert.deepEqual(
      s.timeline.sent.filter((f) => f.kind === 'control').map((f) => f.control),
      ['flush'],
      'the first utterance ended in silence; the last one did not',
    );
    assert.deepEqual(
      s.metrics.inputs.map((i) => i.wer),
      [0, 0],
    );
    assert.equal(s.metrics.inputs[0]!.commit_to_flush_ms, undefined, 'no client commit, so no commit-to-flush');
    assert.ok(s.metrics.inputs[1]!.commit_to_flush_ms! > 0);
  });

  it("VAD commits: a flush racing the VAD's commit gets an empty committed transcript, which is no part of the turn", async () => {
    // Scribe announces no VAD event: the client sees speech uncommitted until the committed transcript
    // arrives, the model's finalize time after the VAD's stop. Made 400 ms, the stream ends inside it
    // (the stop falls in the trail's last 200 ms, 25 ms at 8x), so the client flushes what the VAD has
    // already committed, and the idle time after the last turn waits for the flush's empty answer.
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, finalizeMs: 400, jitterMs: 0 } });
    const s = await session(origin(server.url), { turnDetection: SERVER_VAD, padding: { trailMs: 700 }, idleMs: 300 });
    assert.deepEqual(s.outcome, { status: 'completed' });
    assert.deepEqual(
      s.timeline.sent.filter((f) => f.kind === 'control').map((f) => f.control),
      ['flush'],
    );
    assert.deepEqual(finals(s.timeline.received), [REFERENCES[0], ''], 'the race took place, and the flush was answered');
    const turn = sessionView(s.timeline).inputs[0]!;
    assert.deepEqual(
      turn.transcript.finals.map((f) => f.text),
      [REFERENCES[0]],
    );
    assert.equal(s.metrics.inputs[0]!.wer, 0);
    assert.equal(s.metrics.inputs[0]!.commit_to_flush_ms, undefined, 'the VAD committed the turn, not the flush');
    assert.equal(s.metrics.session.protocol_anomalies, 0);
  });

  it('refuses a session without a model_id with invalid_request, as a server error', async () => {
    const server = await testServer();
    const s = await session(`${origin(server.url)}/v1/speech-to-text/realtime?model_id=`);
    assert.equal(s.outcome.status, 'failed');
    assert.equal(s.outcome.status === 'failed' && s.outcome.failure.class, 'server_error');
    assert.equal(s.outcome.status === 'failed' && s.outcome.failure.code, 'invalid_request');
  });

  it('a wrong key is refused at the upgrade', async () => {
    const server = await testServer({ apiKey: 'right' });
    const s = await session(origin(server.url), { apiKey: 'wrong' });
    assert.equal(s.outcome.status === 'failed' && s.outcome.failure.class, 'upgrade_status');
    assert.equal(s.outcome.status === 'failed' && s.outcome.failure.httpStatus, 401);
  });
});

describe('elevenlabs-scribe against hostile servers', () => {
  /** A server that starts the session and then answers the first audio chunk with `reply`. */
  const scripted = (reply: (ws: WebSocket) => void) =>
    rawServer((send, ws) => {
      send({ message_type: 'session_started', session_id: 'x', config: { sample_rate: 16000 } });
      let replied = false;
      ws.on('message', (data) => {
        const chunk = JSON.parse(messageText(data)) as { audio_base_64: string };
        if (chunk.audio_base_64 !== '' && !replied) {
          replied = true;
          reply(ws);
        }
      });
    });
  const failure = async (url: string) => {
    const s = await session(url.replace('/v1/realtime', ELEVENLABS_SCRIBE.path));
    assert.equal(s.outcome.status, 'failed');
    return s.outcome.status === 'failed' ? s.outcome.failure : undefined;
  };

  for (const type of ['quota_exceeded', 'auth_error', 'rate_limited']) {
    it(`its ${type} message ends the session as a server error carrying the type`, async () => {
      const url = await scripted((ws) => ws.send(JSON.stringify({ message_type: type, error: `${type}: go away` })));
      // A refusal for the key also says which key was sent (none here) and where the dialect looks for one.
      const keyNote =
        type === 'auth_error'
          ? ' (no API key was sent; elevenlabs-scribe reads ELEVENLABS_API_KEY, else VOXBENCH_API_KEY (or the variable --api-key-env names))'
          : '';
      assert.deepEqual(await failure(url), {
        class: 'server_error',
        code: type,
        message: `server error ${type}: ${type}: go away${keyNote}`,
        stage: 'streaming',
      });
    });
  }

  it('a close mid-stream is an abnormal close with its code', async () => {
    const url = await scripted((ws) => ws.close(1011, 'transcriber failed'));
    const f = await failure(url);
    assert.equal(f?.class, 'abnormal_close');
    assert.equal(f?.closeCode, 1011);
  });

  it('a malformed event is a protocol violation', async () => {
    const url = await scripted((ws) => ws.send(JSON.stringify({ type: 'partial_transcript', text: 'no message_type' })));
    const f = await failure(url);
    assert.equal(f?.class, 'protocol_violation');
    assert.match(f.message, /message_type/);
  });
});

describe("elevenlabs-scribe under the built-in server's faults", () => {
  const rows = [
    { fault: 'never-finalize', expect: { class: 'timeout', stage: 'final' } },
    { fault: 'error-event:quota_exceeded', expect: { class: 'server_error', stage: 'streaming', code: 'quota_exceeded' } },
    { fault: 'error-event:overloaded', expect: { class: 'server_error', stage: 'streaming', code: 'error' } },
    { fault: 'close:4001@streaming', expect: { class: 'abnormal_close', stage: 'streaming', closeCode: 4001 } },
    { fault: 'malformed-json@final', expect: { class: 'protocol_violation', stage: 'final' } },
    // A committed transcript before the commit, or a second one, answers no turn: each turn keeps the one its commit asked for.
    { fault: 'early-final', expect: 'completed' },
    { fault: 'duplicate-final', expect: 'completed' },
  ] as const;
  for (const row of rows) {
    const outcome = row.expect === 'completed' ? 'completed, each turn with its own final' : `${row.expect.class} at ${row.expect.stage}`;
    it(`${row.fault}: ${outcome}`, async () => {
      const server = await testServer({ faults: [parseFaultScenario(row.fault)] });
      const s = await session(origin(server.url), { turnsPerSession: 2, timeouts: { finalMs: 300 } });
      if (row.expect === 'completed') {
        assert.deepEqual(s.outcome, { status: 'completed' });
        assert.deepEqual(
          s.metrics.inputs.map((i) => i.wer),
          [0, 0],
        );
        assert.ok(s.metrics.session.protocol_anomalies! > 0, 'the extra final is an anomaly');
        return;
      }
      assert.equal(s.outcome.status, 'failed');
      const failure = s.outcome.status === 'failed' ? s.outcome.failure : undefined;
      assert.deepEqual(Object.fromEntries(Object.keys(row.expect).map((k) => [k, failure?.[k as keyof typeof failure]])), row.expect);
    });
  }
});
