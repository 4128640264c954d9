import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { describe, it } from 'node:test';
import { run, UsageError } from '../src/run/run.js';
import { parseFaultScenario } from '../src/server/faults/faults.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import type { ServerOptions } from '../src/server/server.js';
import { renderHtml } from '../src/report/html/index.js';
import type { HeldReport, HeldSession } from '../src/report/schema.js';
import type { AudioInput, SessionTimeline } from '../src/timeline/types.js';
import { openaiRealtimeDialect } from '../src/dialects/openai-realtime/client.js';
import { vllmOmniDuplexDialect } from '../src/dialects/vllm-omni-duplex/client.js';
import { prepareSilence } from '../src/session/prepare.js';
import { sessionView } from '../src/views/session-view.js';
import { messageText, recordingRelay, testServer, until } from './helpers.js';
import { flushBeforeTheVad, flushRacingTheVad } from './vad-race.js';

const VAD = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } as const;
const FAST = { kind: 'realtime', speed: 8 } as const;
/** A VAD whose silence outlasts every sample's own trailing silence: without a trail, the audio ends before it stops. */
const LONG_VAD = { ...VAD, silenceDurationMs: 1000 } as const;
/** Answers generated at 10 times real time, so tests wait little for them. */
const QUICK = { latency: { ...DEFAULT_LATENCY, generationRtf: 0.1 } };
const REFERENCES = ['The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.'];

const controls = (timeline: SessionTimeline, control: string) => timeline.sent.filter((f) => f.kind === 'control' && f.control === control);
/** The agent's spoken words, response by response. */
const spoken = (timeline: SessionTimeline) =>
  timeline.received.filter((e) => e.kind === 'text_final' && e.channel === 'response_transcript').map((e) => e.text);
const normalize = (text: string | undefined) => (text ?? '').toLowerCase().replace(/[^a-z ]/g, '');

/** Run options for the VAD race helpers (`vad-race.ts`): server VAD, one session, streamed at 16x, against a fresh built-in server. */
async function vadRaceBase(protocol: 'openai-realtime' | 'vllm-omni-duplex') {
  const target = await testServer(QUICK);
  const model = protocol === 'openai-realtime' ? 'gpt-realtime' : 'openbmb/MiniCPM-o-4_5';
  return { target: target.url, protocol, model, turnDetection: VAD, maxSessions: 1, pace: { kind: 'realtime', speed: 16 } } as const;
}

/** The one session of a run against the built-in server, with its report. */
async function session(options: NonNullable<Parameters<typeof run>[0]>, server: Partial<ServerOptions> = {}): Promise<HeldSession & { report: HeldReport }> {
  const target = await testServer({ ...QUICK, ...server });
  const model = options.protocol === 'openai-realtime' ? 'gpt-realtime' : 'openbmb/MiniCPM-o-4_5';
  const { report } = await run({ target: target.url, model, maxSessions: 1, pace: FAST, ...options });
  assert.equal(report.config.task, 's2s');
  return { ...report.benchmarks[0]!.sessions[0]!, report };
}

describe('vllm-omni-duplex against the built-in server', () => {
  it('client commits: each turn answered in speech and text, every sequenced event acknowledged, playback reported, the session closed', async () => {
    const { timeline, outcome, metrics, report } = await session({ protocol: 'vllm-omni-duplex', turnsPerSession: 2, slos: ['p95(voice_to_voice_ms)<5000'] });
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(timeline.task, 's2s');
    assert.equal(timeline.turnDetection, 'client');
    // The agent repeats what it heard, so the answer shows the server heard the user's audio.
    assert.deepEqual(
      spoken(timeline).map(normalize),
      REFERENCES.map((r) => normalize(`You said ${r}`)),
    );
    const sequenced = timeline.received.filter((e) => e.serverSeq !== undefined);
    assert.ok(sequenced.length > 20);
    assert.equal(controls(timeline, 'event_ack').length, sequenced.length, 'one session.event_ack per sequenced event');
    assert.ok(controls(timeline, 'playback_ack').length > 0, 'the player reports what it played');
    assert.equal(timeline.sent[timeline.sent.length - 1]!.control, 'session_close');
    assert.ok(timeline.received.some((e) => e.type === 'response.listen' && e.kind === 'response_done'));
    assert.equal(metrics.session.protocol_anomalies, 0, 'a terminal response.listen and the response.done after it are one end');
    assert.equal(metrics.responses.length, 2);
    for (const r of metrics.responses) {
      assert.ok(r.response_ttfp_ms! > 0 && r.response_ttft_ms! > 0, 'measured from the commit');
      assert.ok(r.response_rtf! > 0.1 && r.response_rtf! < 1, `generated at 10 times real time, plus the first delay: ${r.response_rtf}`);
      assert.ok(r.server_ttfp_ms! > 0, 'the server reports its own TTFP');
    }
    for (const v of metrics.inputs) assert.ok(v.voice_to_voice_ms! > 0);
    assert.ok(metrics.session.stream_ttfp_ms! > metrics.responses[0]!.response_ttfp_ms!);
    assert.equal(metrics.session.unprompted_responses, 0);
    const [v2v] = report.benchmarks[0]!.summary.slos;
    assert.ok(v2v!.pass && v2v!.value! > 0);
  });

  it('--wait-for-answer on vLLM-Omni: audio_end_ms counts the whole stream, silence included, as DuplexClient counts it', async () => {
    const target = await testServer(QUICK);
    const relay = await recordingRelay(target.url);
    const { report } = await run({
      target: relay.url,
      protocol: 'vllm-omni-duplex',
      model: 'openbmb/MiniCPM-o-4_5',
      turnDetection: VAD,
      turnsPerSession: 2,
      padding: { trailMs: 700 },
      waitForAnswer: true,
      maxSessions: 1,
      pace: FAST,
    });
    const { timeline, outcome } = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(outcome, { status: 'completed' });
    const sent = timeline.sent.filter((f) => f.kind === 'audio');
    const wire = relay.sent.filter((e) => e.type === 'input_audio_buffer.append') as Array<{ duration_ms: number; audio_end_ms: number; audio: string }>;
    assert.equal(wire.length, sent.length);
    assert.ok(sent.some((f) => f.silence) && sent.some((f) => f.input === 1));
    let end = 0;
    for (const [i, append] of wire.entries()) {
      end += append.duration_ms;
      assert.equal(append.audio_end_ms, end, `append ${i}: the end of its span of the session's stream`);
      assert.equal(append.audio_end_ms, Math.round(sent[i]!.audioEndMs!));
      if (sent[i]!.silence)
        assert.ok(
          Buffer.from(append.audio, 'base64').every((b) => b === 0),
          'silence',
        );
    }
    assert.equal(end, Math.round((timeline.inputs[1] as AudioInput).audioEndMs), 'the second utterance continues the count');
  });

  it("refuses an SLO on another task's metric, which could only fail", async () => {
    await assert.rejects(
      run({ protocol: 'vllm-omni-duplex', slos: ['p50(ttft_ms)<800'] }),
      (err: Error) =>
        err instanceof UsageError &&
        err.message.startsWith('slos "p50(ttft_ms)<800": ttft_ms is not a metric of protocol vllm-omni-duplex (task s2s); its metrics: connect_ms,'),
    );
  });

  it('drop-acks: the server loses the acknowledgements and fails the session with its error code', async () => {
    const { outcome } = await session({ protocol: 'vllm-omni-duplex', turnsPerSession: 2 }, { faults: [parseFaultScenario('drop-acks')] });
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.failure.code, 'event_ack_timeout');
  });

  for (const afterStopMs of [40, 300]) {
    it(`vllm-omni-duplex under server VAD: a flush racing the VAD's stop (${afterStopMs} ms of audio after it) is refused with input_audio_buffer_empty, and the VAD's one response answers the turn`, async () => {
      const { outcome, timeline, metrics } = await flushRacingTheVad(await vadRaceBase('vllm-omni-duplex'), VAD.silenceDurationMs, afterStopMs);
      assert.deepEqual(outcome, { status: 'completed' }, 'the refusal failed no session');
      assert.deepEqual(
        timeline.received.filter((e) => e.kind === 'error').map((e) => [e.code, e.scope]),
        [['input_audio_buffer_empty', 'commit']],
        'the VAD cleared the rest of the chunk holding its stop with its own commit',
      );
      assert.deepEqual(
        sessionView(timeline).inputs.map((turn) => turn.items),
        [1],
      );
      assert.equal(metrics.responses.length, 1, 'no second answer, to silence');
      assert.ok(metrics.inputs[0]!.voice_to_voice_ms! > 0);
      assert.equal(metrics.session.unprompted_responses, 0);
      assert.equal(metrics.session.protocol_anomalies, 0);
    });
  }

  it('vllm-omni-duplex under server VAD: the last utterance, cut by the flush, is its own turn, though vLLM-Omni stops it at audio_end_ms 0', async () => {
    const base = { ...(await vadRaceBase('vllm-omni-duplex')), turnDetection: LONG_VAD, turnsPerSession: 2, waitForAnswer: true };
    const { outcome, timeline, metrics } = await flushBeforeTheVad(base);
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(timeline.received.filter((e) => e.kind === 'speech_stopped').at(-1)?.audioEndMs, 0, "the flush's stop");
    assert.deepEqual(
      sessionView(timeline).inputs.map((turn) => turn.items),
      [1, 1],
    );
    assert.deepEqual(
      spoken(timeline).map(normalize),
      REFERENCES.map((r) => normalize(`You said ${r}`)),
    );
    for (const v of metrics.inputs) assert.ok(v.voice_to_voice_ms! > 0);
  });

  it('the built-in vLLM-Omni server commits audio it heard no speech in as an item that no response answers, asked or not, and refuses a commit of nothing new', async () => {
    const target = await testServer(QUICK);
    const ws = new WebSocket(`${target.url}?duplex=1&model=openbmb/MiniCPM-o-4_5&autostart=0`);
    const received: Array<Record<string, unknown>> = [];
    ws.on('message', (data) => received.push(JSON.parse(messageText(data)) as Record<string, unknown>));
    await new Promise((resolve) => ws.once('open', resolve));
    const send = (event: object) => ws.send(JSON.stringify(event));
    const types = () => received.map((e) => e.type);
    send({ type: 'session.update', session: { turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 } } });
    send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(16_000 * 2 * 0.3).toString('base64') });
    const commit = { type: 'input_audio_buffer.commit', final: true, response_create: true };
    send(commit);
    send(commit);
    await until(() => types().includes('conversation.item.done'));
    // Anything the commit had asked for was due with the item's transcript: a round trip after it, it would be here.
    send({ type: 'session.heartbeat' });
    await until(() => types().includes('session.heartbeat_ack'));
    ws.close();
    assert.ok(!types().includes('response.created'), types().join());
    assert.equal(types().filter((t) => t === 'input_audio_buffer.committed').length, 1);
    const errors = received.filter((e) => e.type === 'error').map((e) => (e.error as { code?: string }).code);
    assert.deepEqual(errors, ['input_audio_buffer_empty']);
  });

  it('never-respond: a turn never answered times out waiting for the answer', async () => {
    const { outcome } = await session({ protocol: 'vllm-omni-duplex', timeouts: { finalMs: 400 } }, { faults: [parseFaultScenario('never-respond')] });
    assert.equal(outcome.status, 'failed');
    assert.deepEqual(outcome.status === 'failed' && [outcome.failure.class, outcome.failure.stage], ['timeout', 'final']);
  });
});

describe('openai-realtime against the built-in server', () => {
  it('client commits: response.create follows each commit at once, and the answer is measured from the commit', async () => {
    const { timeline, outcome } = await session({ protocol: 'openai-realtime' });
    assert.deepEqual(outcome, { status: 'completed' });
    const end = controls(timeline, 'input_end');
    const request = controls(timeline, 'response_request');
    assert.equal(end.length, 1);
    assert.equal(request.length, 1);
    assert.equal(timeline.sent.indexOf(request[0]!), timeline.sent.indexOf(end[0]!) + 1);
    assert.deepEqual(controls(timeline, 'event_ack'), [], 'OpenAI numbers no events');
    assert.deepEqual(spoken(timeline).map(normalize), [normalize(`You said ${REFERENCES[0]}`)]);
  });

  it('barge-in: the user speaks over the answer, the server cancels it, and the stop is measured', async () => {
    const { timeline, outcome, metrics, report } = await session(
      { protocol: 'openai-realtime', turnDetection: VAD, turnsPerSession: 2, padding: { gapMs: 1600, trailMs: 700 }, pace: { kind: 'realtime', speed: 4 } },
      { latency: DEFAULT_LATENCY },
    );
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(timeline.turnDetection, 'server');
    assert.ok(
      timeline.received.some((e) => e.kind === 'response_cancelled'),
      'the first answer was cancelled',
    );
    assert.equal(metrics.inputs[1]!.barge_in_cancelled, 1);
    // The VAD hears speech in its first 20 ms frame: the answer stops within a round trip and a chunk.
    assert.ok(metrics.inputs[1]!.barge_in_stop_ms! > 0 && metrics.inputs[1]!.barge_in_stop_ms! < 500, `stopped in ${metrics.inputs[1]!.barge_in_stop_ms} ms`);
    assert.equal(metrics.inputs[0]!.barge_in_stop_ms, undefined, 'the first turn interrupted nothing');
    assert.ok(spoken(timeline).length >= 1, 'the second turn is answered');
    // The conversation waterfall draws the agent's side and the barge-in.
    const page = renderHtml(report);
    for (const series of ['agent audio received', 'answer playback starts', 'user speaks over an answer', 'answer cancelled'])
      assert.ok(page.includes(`"label":"${series}"`), series);
  });

  it('--barge-in-at-ms: the next utterance starts that long into the answer, which the server then cancels', async () => {
    const { timeline, outcome, metrics } = await session(
      {
        protocol: 'openai-realtime',
        turnDetection: VAD,
        turnsPerSession: 2,
        padding: { trailMs: 700 },
        bargeInAtMs: 400,
        pace: { kind: 'realtime', speed: 4 },
      },
      { latency: DEFAULT_LATENCY },
    );
    assert.deepEqual(outcome, { status: 'completed' });
    const firstAudio = timeline.received.find((e) => e.kind === 'audio')!;
    const resumed = timeline.sent.find((f) => f.kind === 'audio' && f.input === 1)!;
    assert.ok(resumed.t >= firstAudio.t + 400 / 4, 'the second utterance waited 400 ms of audio (100 ms at 4x) into the answer');
    assert.equal(metrics.inputs[1]!.barge_in_cancelled, 1);
    assert.ok(metrics.inputs[1]!.barge_in_stop_ms! > 0);
    const silence = timeline.sent.filter((f) => f.silence);
    assert.ok(silence.length > 0 && silence[silence.length - 1]!.t <= resumed.t, 'the microphone streamed silence until the user spoke over the answer');
  });

  it('--barge-in-at-ms is refused where no server would hear the user over its answer', async () => {
    await assert.rejects(
      run({ protocol: 'openai-realtime', turnsPerSession: 2, bargeInAtMs: 400 }),
      /bargeInAtMs needs a speech-to-speech protocol with turnDetection server_vad/,
    );
    await assert.rejects(run({ protocol: 'openai-realtime', turnDetection: VAD, bargeInAtMs: 400 }), /turnsPerSession 2 or more/);
  });

  it('--wait-for-answer: under server VAD the next utterance streams once the last one is answered, silence streamed in real time meanwhile', async () => {
    const { timeline, outcome, metrics, report } = await session({
      protocol: 'openai-realtime',
      turnDetection: VAD,
      turnsPerSession: 2,
      padding: { trailMs: 700 },
      waitForAnswer: true,
    });
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(report.config.waitAudio, 'silence');
    const firstDone = timeline.received.find((e) => e.kind === 'response_done')!;
    const secondAudio = timeline.sent.find((f) => f.kind === 'audio' && f.input === 1 && !f.silence)!;
    assert.ok(secondAudio.t >= firstDone.t, 'the second utterance waited for the first answer');
    const silence = timeline.sent.filter((f) => f.silence);
    const [first, second] = timeline.inputs as AudioInput[];
    assert.ok(silence.length > 3, 'the microphone stayed open while the user waited');
    // One continuous stream: the silence starts where the first utterance ends and the second starts where it ends, chunk after chunk.
    assert.equal(silence[0]!.audioStartMs, first!.audioEndMs);
    assert.equal(silence[silence.length - 1]!.audioEndMs, second!.audioStartMs);
    for (const [i, f] of silence.entries()) {
      assert.equal(f.input, 0);
      if (i > 0) assert.equal(f.audioStartMs, silence[i - 1]!.audioEndMs);
      // Paced like the audio: due at its stream position at 8 times real time, from the stream's own start.
      assert.ok(Math.abs(f.plannedMs! - (timeline.sent.find((s) => s.kind === 'audio')!.plannedMs! + f.audioStartMs! / 8)) < 1e-6);
      assert.ok(f.t >= f.plannedMs!);
    }
    assert.ok(silence[silence.length - 1]!.t < firstDone.t + 100 / 8 + 5, 'and stopped once the answer was done');
    assert.ok(secondAudio.plannedMs! >= silence[silence.length - 1]!.plannedMs!, 'no burst to catch up');
    // The silence is sent audio, of no input: the figures stay those of the utterances.
    const firstSent = timeline.sent.find((f) => f.kind === 'audio')!;
    const firstReceived = timeline.received.find((e) => e.kind === 'audio' && (e.audioBytes ?? 0) > 0)!;
    assert.equal(metrics.session.stream_ttfp_ms, firstReceived.t - firstSent.t);
    assert.equal(metrics.session.audio_sent_ms, second!.audioEndMs);
    for (const [i, input] of timeline.inputs.entries()) {
      if (input.kind !== 'audio') continue;
      const eos = timeline.sent.find(
        (f) => f.kind === 'audio' && !f.silence && f.input === i && f.audioStartMs! < input.speechEndMs && input.speechEndMs <= f.audioEndMs!,
      )!;
      const answer = timeline.received.find((e) => e.kind === 'audio' && (e.audioBytes ?? 0) > 0 && e.t >= eos.t)!;
      assert.equal(metrics.inputs[i]!.voice_to_voice_ms, answer.t - eos.t, `utterance ${i}`);
    }
    assert.deepEqual(
      spoken(timeline).map(normalize),
      REFERENCES.map((r) => normalize(`You said ${r}`)),
    );
    assert.ok(renderHtml(report).includes('"label":"silence sent while waiting"'), 'the waterfall draws it apart from the utterances');
  });

  it('--wait-audio pause: the stream stops while waiting, and resumes at real-time pace from where it paused', async () => {
    const { timeline, outcome, report } = await session({
      protocol: 'openai-realtime',
      turnDetection: VAD,
      turnsPerSession: 2,
      padding: { trailMs: 700 },
      waitForAnswer: true,
      waitAudio: 'pause',
    });
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(report.config.waitAudio, 'pause');
    assert.deepEqual(
      timeline.sent.filter((f) => f.silence),
      [],
    );
    const firstDone = timeline.received.find((e) => e.kind === 'response_done')!;
    const secondAudio = timeline.sent.find((f) => f.kind === 'audio' && f.input === 1)!;
    assert.ok(secondAudio.plannedMs! >= firstDone.t);
    assert.equal(
      timeline.inputs[1]!.kind === 'audio' && timeline.inputs[1]!.audioStartMs,
      timeline.inputs[0]!.kind === 'audio' && timeline.inputs[0]!.audioEndMs,
    );
    await assert.rejects(
      run({ protocol: 'openai-realtime', turnDetection: VAD, turnsPerSession: 2, waitAudio: 'pause' }),
      /^OptionsError: waitAudio applies only while the client waits between utterances: give waitForAnswer or bargeInAtMs$/,
    );
  });

  it('the silence is encoded once: one frame reused where frames name no position, one payload framed at each span for vLLM-Omni', () => {
    const openai = prepareSilence(openaiRealtimeDialect({ model: 'gpt-realtime', turnDetection: { type: 'none' } }), 100);
    assert.equal(openai.frame({ startMs: 0, endMs: 100 }), openai.frame({ startMs: 5000, endMs: 5100 }), 'the same buffer');
    const omni = prepareSilence(vllmOmniDuplexDialect({ model: 'm', turnDetection: { type: 'none' } }), 100);
    const frame = JSON.parse(omni.frame({ startMs: 2000, endMs: 2100 }).toString()) as Record<string, unknown>;
    assert.deepEqual(
      { ...frame, audio: Buffer.from(frame.audio as string, 'base64').equals(Buffer.alloc(3200)) },
      {
        type: 'input_audio_buffer.append',
        audio: true,
        format: 'pcm16',
        sample_rate_hz: 16000,
        duration_ms: 100,
        audio_end_ms: 2100,
      },
    );
    assert.equal(omni.binary, false);
  });

  for (const [afterStopMs, answer] of [
    [40, 'refuses to commit the 40 ms left'],
    [300, 'commits the 300 ms of silence left'],
  ] as const) {
    it(`openai-realtime under server VAD: a flush racing the VAD's stop, which the server ${answer}, is answered by the VAD's one response`, async () => {
      const { outcome, timeline, metrics } = await flushRacingTheVad(await vadRaceBase('openai-realtime'), VAD.silenceDurationMs, afterStopMs);
      assert.deepEqual(outcome, { status: 'completed' }, 'no refusal failed it, and no answer to silence was awaited');
      assert.equal(timeline.received.filter((e) => e.kind === 'response_done').length, 1);
      assert.deepEqual(controls(timeline, 'response_request'), [], 'the VAD answered the turn: nothing asked for another');
      assert.equal(metrics.session.protocol_anomalies, 0);
    });
  }

  it('openai-realtime under server VAD: audio ending mid-utterance is committed by the flush, which asks for no answer, so the client asks for it', async () => {
    const { outcome, timeline, metrics } = await flushBeforeTheVad({ ...(await vadRaceBase('openai-realtime')), turnDetection: LONG_VAD });
    assert.deepEqual(outcome, { status: 'completed' }, 'the turn was answered, not awaited until the final timeout');
    assert.deepEqual(
      timeline.sent.filter((f) => f.control === 'flush' || f.control === 'response_request').map((f) => f.control),
      ['flush', 'response_request'],
    );
    assert.deepEqual(spoken(timeline).map(normalize), [normalize(`You said ${REFERENCES[0]}`)]);
    assert.ok(metrics.inputs[0]!.voice_to_voice_ms! > 0);
    assert.equal(metrics.session.protocol_anomalies, 0);
  });

  it('cut-mid-response: the connection closed halfway through the answer is an abnormal close', async () => {
    const { outcome, timeline } = await session({ protocol: 'openai-realtime' }, { faults: [parseFaultScenario('cut-mid-response')] });
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.failure.closeCode, 1011);
    assert.ok(
      timeline.received.some((e) => e.kind === 'audio'),
      'some audio came first',
    );
  });
});
