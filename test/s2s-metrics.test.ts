import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interpretConversationEvent } from '../src/dialects/s2s-events.js';
import { openaiRealtimeDialect } from '../src/dialects/openai-realtime/client.js';
import { vllmOmniDuplexDialect } from '../src/dialects/vllm-omni-duplex/client.js';
import { metricByName, metricsFor } from '../src/metrics/catalog.js';
import { computeSessionMetrics } from '../src/metrics/compute.js';
import type { AudioInput, ReceivedFrame, SentFrame, SessionTimeline, TurnDetection } from '../src/timeline/types.js';

const decode = (event: object) => interpretConversationEvent(JSON.stringify(event), 24_000);
/** The session a session.update frame carries. */
const sessionOf = (frame: string): Record<string, unknown> => (JSON.parse(frame) as { session: Record<string, unknown> }).session;
/** 100 ms of PCM16 at 24 kHz, base64. */
const B64_100MS = Buffer.alloc(4800).toString('base64');

describe('conversation events', () => {
  it('read GA and beta spellings alike: audio with its cumulative duration, transcript and text', () => {
    for (const [audio, transcript, text] of [
      ['response.output_audio.delta', 'response.output_audio_transcript.delta', 'response.output_text.delta'],
      ['response.audio.delta', 'response.audio_transcript.delta', 'response.text.delta'],
    ] as const) {
      assert.deepEqual(decode({ type: audio, response_id: 'r', item_id: 'i', delta: B64_100MS, server_event_seq: 7, metadata: { audio_duration_ms: 300 } }), {
        type: audio,
        kind: 'audio',
        responseId: 'r',
        itemId: 'i',
        serverSeq: 7,
        audioBytes: 4800,
        audioMs: 100,
        cumulativeAudioMs: 300,
      });
      assert.deepEqual(decode({ type: transcript, response_id: 'r', delta: 'Hi' }), {
        type: transcript,
        kind: 'text_delta',
        channel: 'response_transcript',
        responseId: 'r',
        text: 'Hi',
      });
      assert.deepEqual(decode({ type: text, response_id: 'r', delta: 'Hi' }), {
        type: text,
        kind: 'text_delta',
        channel: 'response_text',
        responseId: 'r',
        text: 'Hi',
      });
    }
    // The rate the event names wins over the dialect's default: 4800 bytes at 16 kHz are 150 ms.
    assert.equal(decode({ type: 'response.audio.delta', delta: B64_100MS, sample_rate_hz: 16_000 }).audioMs, 150);
  });

  it("read a response's start with the server's own metrics, its ends, and errors by scope", () => {
    const created = decode({
      type: 'response.created',
      response: {
        id: 'r',
        status: 'in_progress',
        metadata: { duplex_event: { response_request_metrics: { ttft_ms: 80.5, ttfp_ms: 90, measurement_origin: 'server_request_start' } } },
      },
    });
    assert.deepEqual(created, {
      type: 'response.created',
      kind: 'response_started',
      responseId: 'r',
      serverMetrics: { ttftMs: 80.5, ttfpMs: 90, origin: 'server_request_start' },
    });
    assert.equal(decode({ type: 'response.listen', response_id: 'r' }).kind, 'response_done');
    assert.equal(decode({ type: 'response.listen' }).kind, 'other', 'a listen beat without a response id ends nothing');
    assert.equal(
      decode({ type: 'response.done', response: { id: 'r', status: 'cancelled', status_details: { reason: 'barge_in' } } }).kind,
      'response_cancelled',
    );
    assert.deepEqual(decode({ type: 'response.done', response: { id: 'r', status: 'failed', status_details: { reason: 'engine' } } }), {
      type: 'response.done',
      kind: 'error',
      scope: 'response',
      responseId: 'r',
      code: 'response_failed',
      message: 'response failed: engine',
    });
    assert.deepEqual(decode({ type: 'error', error: { code: 'session_resume_expired', message: 'gone' } }), {
      type: 'error',
      kind: 'error',
      code: 'session_resume_expired',
      message: 'gone',
      scope: 'session',
    });
    assert.deepEqual(decode({ type: 'error', error: 'late', code: 'playback_ack_too_late' }), {
      type: 'error',
      kind: 'error',
      code: 'playback_ack_too_late',
      message: 'late',
      scope: 'response',
    });
    assert.equal(decode({ type: 'error', response_id: 'r', error: { code: 'x', message: '' } }).scope, 'response');
  });

  it('duplex frames carry the chunk and stream positions vLLM-Omni reads, and the URL asks for duplex without autostart', () => {
    const dialect = vllmOmniDuplexDialect({ model: 'm', turnDetection: { type: 'none' } });
    const frame = JSON.parse(dialect.audioFrame(Buffer.alloc(6400), { startMs: 1000, endMs: 1200 }) as string) as Record<string, unknown>;
    assert.deepEqual(
      { ...frame, audio: undefined },
      { type: 'input_audio_buffer.append', audio: undefined, format: 'pcm16', sample_rate_hz: 16_000, duration_ms: 200, audio_end_ms: 1200 },
    );
    assert.equal(dialect.connectUrl('ws://h/v1/realtime'), 'ws://h/v1/realtime?duplex=1&model=m&autostart=0');
    assert.deepEqual(JSON.parse(dialect.inputEndFrame()), { type: 'input_audio_buffer.commit', final: true, response_create: true });
    assert.equal(sessionOf(dialect.sessionFrames()[0]!).turn_detection, null, 'the client commits');
  });

  it('send the agent instructions in session.update, where each dialect keeps them', () => {
    const settings = { model: 'm', turnDetection: { type: 'none' } as const, instructions: 'Answer briefly.' };
    assert.equal(sessionOf(vllmOmniDuplexDialect(settings).sessionFrames()[0]!).instructions, 'Answer briefly.');
    const realtime = sessionOf(openaiRealtimeDialect(settings).sessionFrames()[0]!);
    assert.deepEqual([realtime.type, realtime.instructions], ['realtime', 'Answer briefly.']);
    assert.equal(sessionOf(openaiRealtimeDialect({ ...settings, instructions: undefined }).sessionFrames()[0]!).instructions, undefined);
  });
});

describe('duplex playback reports', () => {
  it("report each response's played audio as a player at the session's pace would, once per change", () => {
    const reactions = vllmOmniDuplexDialect({ model: 'm', turnDetection: { type: 'none' } }).reactions!({ speed: 2 });
    const audio = (t: number, ms: number): ReceivedFrame => ({
      t,
      type: 'response.output_audio.delta',
      kind: 'audio',
      input: 0,
      responseId: 'r',
      itemId: 'i',
      audioMs: ms,
      audioBytes: ms * 48,
      serverSeq: t,
    });
    assert.deepEqual(reactions.received(audio(1000, 400)), [{ frame: '{"type":"session.event_ack","server_event_seq":1000}', control: 'event_ack' }]);
    reactions.received(audio(1100, 400));
    // At 2x, 400 ms of audio plays in 200 ms: by 1250 ms, 500 ms of the 800 received have played.
    assert.deepEqual(reactions.tick(1250), [
      { frame: '{"type":"playback.ack","played_ms":500,"committed_ms":500,"response_id":"r","item_id":"i"}', control: 'playback_ack' },
    ]);
    assert.deepEqual(
      reactions.tick(1500).map((r) => (JSON.parse(r.frame) as { played_ms: number }).played_ms),
      [800],
    );
    assert.deepEqual(reactions.tick(1750), [], 'nothing new played');
    assert.deepEqual(reactions.closing(1800), [{ frame: '{"type":"session.close"}', control: 'session_close' }]);
  });
});

/** One user utterance per input, 1 s of audio in 100 ms chunks from `t0`, speech ending at 800 ms. */
function timeline(
  turnDetection: TurnDetection,
  received: Array<Omit<ReceivedFrame, 'input'> & { input?: number }>,
  extraSent: SentFrame[] = [],
  inputs = 1,
): SessionTimeline {
  const plan: AudioInput[] = Array.from({ length: inputs }, (_, i) => ({
    kind: 'audio',
    index: i,
    sampleId: `s${i}`,
    split: 'test',
    reference: null,
    audioStartMs: i * 1000,
    speechStartMs: i * 1000 + 100,
    speechEndMs: i * 1000 + 800,
    eosSource: 'label',
    audioEndMs: (i + 1) * 1000,
  }));
  const audio: SentFrame[] = plan.flatMap((p) =>
    Array.from({ length: 10 }, (_, k) => ({
      t: 100 + p.audioStartMs + k * 100,
      input: p.index,
      bytes: 100,
      kind: 'audio' as const,
      plannedMs: null,
      audioStartMs: p.audioStartMs + k * 100,
      audioEndMs: p.audioStartMs + (k + 1) * 100,
    })),
  );
  return {
    task: 's2s',
    turnDetection,
    plannedStartMs: 0,
    startMs: 0,
    inputs: plan,
    sent: [...audio, ...extraSent].sort((a, b) => a.t - b.t),
    received: received.map((e) => ({ input: 0, ...e })),
    transport: { kind: 'websocket', openMs: 10, readyMs: 20, close: { t: 9000, code: 1000, reason: '', by: 'client' } },
    counters: { bytesSent: 0, bytesReceived: 0, framesSent: 0, framesReceived: 0 },
  };
}

const audio = (t: number, responseId: string, cumulativeAudioMs?: number, audioMs = 200): Omit<ReceivedFrame, 'input'> => ({
  t,
  type: 'response.audio.delta',
  kind: 'audio',
  responseId,
  audioBytes: audioMs * 48,
  audioMs,
  ...(cumulativeAudioMs !== undefined ? { cumulativeAudioMs } : {}),
});

describe('speech-to-speech metrics, on hand-built timelines', () => {
  it("per response from the client's commit, per session from the stream start, emitted audio from the largest cumulative duration", () => {
    // Audio sent from t=100 (first chunk) to t=1000; the end of speech (800 ms) is in the chunk sent at t=800; commit at t=1010.
    const commit: SentFrame = { t: 1010, input: 0, bytes: 50, kind: 'control', control: 'input_end' };
    const t = timeline(
      'client',
      [
        {
          t: 1060,
          type: 'response.created',
          kind: 'response_started',
          responseId: 'r1',
          serverMetrics: { ttftMs: 150, ttfpMs: 170, origin: 'server_request_start' },
        },
        { t: 1190, type: 'response.output_audio_transcript.delta', kind: 'text_delta', channel: 'response_transcript', responseId: 'r1', text: '' },
        audio(1210, 'r1', 200),
        { t: 1230, type: 'response.output_audio_transcript.delta', kind: 'text_delta', channel: 'response_transcript', responseId: 'r1', text: 'Hi' },
        audio(1400, 'r1', 400),
        // The server's count restarts mid-response: its largest value (400), not a sum, is what it emitted.
        audio(1560, 'r1', 100),
        { t: 1600, type: 'response.done', kind: 'response_done', responseId: 'r1' },
      ],
      [commit],
    );
    const { responses, inputs, session } = computeSessionMetrics(t);
    assert.equal(responses.length, 1);
    const r = responses[0]!;
    assert.equal(r.response_ttft_ms, 1230 - 1010, 'first non-empty transcript delta, from the commit');
    assert.equal(r.response_ttfp_ms, 1210 - 1010);
    assert.equal(r.response_rtf, (1560 - 1060) / 400, 'from response.created, over the largest cumulative duration');
    assert.equal(r.server_ttft_ms, 150);
    assert.equal(r.server_ttfp_ms, 170);
    assert.equal(session.stream_ttft_ms, 1230 - 100);
    assert.equal(session.stream_ttfp_ms, 1210 - 100);
    assert.equal(session.stream_rtf, (1560 - 100) / 400);
    assert.equal(inputs[0]!.voice_to_voice_ms, 1210 - 800, 'from the chunk holding the end of speech');
    assert.equal(session.unprompted_responses, 0);
    // A player buffering 200 ms starts with the first chunk; 400 ms arrive by 1400, which plays out at 1610 > 1560: no stall.
    assert.equal(r.agent_playback_start_ms, 1210 - 1010);
    assert.equal(r.agent_stall_ms, 0);
  });

  it('under server turn detection a response starts at response.created, and emitted audio sums over responses', () => {
    const t = timeline(
      'server',
      [
        { t: 1100, type: 'response.created', kind: 'response_started', responseId: 'r1' },
        audio(1300, 'r1', 500, 500),
        { t: 1350, type: 'response.done', kind: 'response_done', responseId: 'r1' },
        { t: 2100, type: 'response.created', kind: 'response_started', responseId: 'r2', input: 1 },
        audio(2200, 'r2'),
        { t: 2250, type: 'response.output_text.delta', kind: 'text_delta', channel: 'response_text', responseId: 'r2', text: 'ok' },
        { t: 2300, type: 'response.done', kind: 'response_done', responseId: 'r2' },
      ],
      [],
      2,
    );
    const { responses, inputs, session } = computeSessionMetrics(t);
    assert.deepEqual(
      responses.map((r) => r.response_ttfp_ms),
      [200, 100],
    );
    assert.deepEqual(
      responses.map((r) => r.response_ttft_ms),
      [undefined, 150],
    );
    assert.deepEqual(
      responses.map((r) => r.response_rtf),
      [200 / 500, 100 / 200],
      'without cumulative counts, the payloads say',
    );
    assert.equal(session.stream_rtf, (2200 - 100) / (500 + 200));
    // Input 1's speech ends at 1800 ms of the stream, in the chunk sent at t=1800.
    assert.deepEqual(
      inputs.map((v) => v.voice_to_voice_ms),
      [1300 - 800, 2200 - 1800],
    );
  });

  it('barge-in: the user speaks while a response is in progress, to the agent stopping', () => {
    // Input 1's speech starts at 1100 ms of the stream: in the chunk 1100..1200 ms, sent at t=1200.
    const cancelled = timeline(
      'server',
      [
        { t: 900, type: 'response.created', kind: 'response_started', responseId: 'r1' },
        audio(1000, 'r1'),
        audio(1250, 'r1'),
        { t: 1280, type: 'response.done', kind: 'response_cancelled', responseId: 'r1' },
      ],
      [],
      2,
    );
    const m = computeSessionMetrics(cancelled);
    assert.equal(m.inputs[0]!.barge_in_stop_ms, undefined);
    assert.equal(m.inputs[1]!.barge_in_stop_ms, 1280 - 1200);
    assert.equal(m.inputs[1]!.barge_in_cancelled, 1);
    // A server that never cancels: the agent stops at its last audio.
    const ignored = timeline(
      'server',
      [
        { t: 900, type: 'response.created', kind: 'response_started', responseId: 'r1' },
        audio(1000, 'r1'),
        audio(1450, 'r1'),
        { t: 1500, type: 'response.done', kind: 'response_done', responseId: 'r1' },
      ],
      [],
      2,
    );
    const n = computeSessionMetrics(ignored);
    assert.equal(n.inputs[1]!.barge_in_stop_ms, 1450 - 1200);
    assert.equal(n.inputs[1]!.barge_in_cancelled, 0);
  });

  it('counts responses no end of speech asked for', () => {
    const t = timeline('server', [
      { t: 500, type: 'response.created', kind: 'response_started', responseId: 'r0' },
      { t: 600, type: 'response.done', kind: 'response_done', responseId: 'r0' },
      { t: 900, type: 'response.created', kind: 'response_started', responseId: 'r1' },
      { t: 950, type: 'response.done', kind: 'response_done', responseId: 'r1' },
      { t: 960, type: 'response.created', kind: 'response_started', responseId: 'r2' },
      { t: 990, type: 'response.done', kind: 'response_done', responseId: 'r2' },
    ]);
    assert.equal(computeSessionMetrics(t).session.unprompted_responses, 2, 'one before the user spoke, one more after a single end of speech');
  });

  it('keep names apart from the transcription metrics, so each name resolves to one entry', () => {
    const s2s = metricsFor('s2s').map((m) => m.name);
    for (const name of [
      'response_ttft_ms',
      'response_ttfp_ms',
      'response_rtf',
      'stream_ttft_ms',
      'stream_ttfp_ms',
      'stream_rtf',
      'voice_to_voice_ms',
      'barge_in_stop_ms',
    ]) {
      assert.ok(s2s.includes(name), name);
      assert.deepEqual(metricByName(name)!.tasks, ['s2s']);
    }
    assert.ok(!s2s.includes('ttft_ms'));
    assert.deepEqual(metricByName('ttft_ms')!.tasks, ['stt', 'batch_stt']);
  });
});
