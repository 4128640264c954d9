import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { run, UsageError } from '../src/run.js';
import { parseFaultScenario } from '../src/server/faults.js';
import { DEFAULT_LATENCY } from '../src/server/latency-model.js';
import type { ServerOptions } from '../src/server/server.js';
import { renderHtml } from '../src/report/html/index.js';
import type { Report, ReportSession } from '../src/report/schema.js';
import type { SessionTimeline } from '../src/timeline/types.js';
import { testServer } from './helpers.js';

const VAD = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } as const;
const FAST = { kind: 'realtime', speed: 8 } as const;
/** Answers generated at 10 times real time, so tests wait little for them. */
const QUICK = { latency: { ...DEFAULT_LATENCY, generationRtf: 0.1 } };
const REFERENCES = ['The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.'];

const controls = (timeline: SessionTimeline, control: string) => timeline.sent.filter((f) => f.kind === 'control' && f.control === control);
/** The agent's spoken words, response by response. */
const spoken = (timeline: SessionTimeline) => timeline.received.filter((e) => e.kind === 'text_final' && e.channel === 'response_transcript').map((e) => e.text);
const normalize = (text: string | undefined) => (text ?? '') 
  .toLowerCase()
  .replace(/[^a-z ]/g, '');

/** The one session of a run against the built-in server, with its report. */
async function session(options: NonNullable<Parameters<typeof run>[0]>, server: Partial<ServerOptions> = {}): Promise<ReportSession & { report: Report }> {
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
    assert.deepEqual(spoken(timeline).map(normalize), REFERENCES.map((r) => normalize(`You said ${r}`)));
    const sequenced = timeline.received.filter((e) => e.serverSeq !== undefined);
    assert.ok(sequenced.length > 20);
    assert.equal(controls(timeline, 'event_ack').length, sequenced.length, 'one session.event_ack per sequenced event');
    assert.ok(controls(timeline, 'playback_ack').length > 0, 'the player reports what it played');
    assert.equal(timeline.sent[timeline.sent.length - 1]!.control, 'session_close');
    assert.ok(timeline.received.some((e) => e.type === 'response.listen' && e.kind === 'response_done'));
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

  it("refuses an SLO on another task's metric, which could only fail", async () => {
    await assert.rejects(run({ protocol: 'vllm-omni-duplex', slos: ['p50(ttft_ms)<800'] }), (err: Error) =>
      err instanceof UsageError && err.message.startsWith('--slo "p50(ttft_ms)<800": ttft_ms is not a metric of --protocol vllm-omni-duplex (task s2s); its metrics: connect_ms,'));
  });

  it('drop-acks: the server loses the acknowledgements and fails the session with its error code', async () => {
    const { outcome } = await session({ protocol: 'vllm-omni-duplex', turnsPerSession: 2 }, { faults: [parseFaultScenario('drop-acks')] });
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.failure.code, 'event_ack_timeout');
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
    const { timeline, outcome, metrics, report } = await session({ protocol: 'openai-realtime', turnDetection: VAD, turnsPerSession: 2, padding: { gapMs: 1600, trailMs: 700 }, pace: { kind: 'realtime', speed: 4 } }, { latency: DEFAULT_LATENCY });
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(timeline.turnDetection, 'server');
    assert.ok(timeline.received.some((e) => e.kind === 'response_cancelled'), 'the first answer was cancelled');
    assert.equal(metrics.inputs[1]!.barge_in_cancelled, 1);
    // The VAD hears speech in its first 20 ms frame: the answer stops within a round trip and a chunk.
    assert.ok(metrics.inputs[1]!.barge_in_stop_ms! > 0 && metrics.inputs[1]!.barge_in_stop_ms! < 500, `stopped in ${metrics.inputs[1]!.barge_in_stop_ms} ms`);
    assert.equal(metrics.inputs[0]!.barge_in_stop_ms, undefined, 'the first turn interrupted nothing');
    assert.ok(spoken(timeline).length >= 1, 'the second turn is answered');
    // The conversation waterfall draws the agent's side and the barge-in.
    const page = renderHtml(report);
    for (const series of ['agent audio received', 'answer playback starts', 'user speaks over an answer', 'answer cancelled']) assert.ok(page.includes(`"label":"${series}"`), series);
  });

  it('--barge-in-at-ms: the next utterance starts that long into the answer, which the server then cancels', async () => {
    const { timeline, outcome, metrics } = await session({ protocol: 'openai-realtime', turnDetection: VAD, turnsPerSession: 2, padding: { trailMs: 700 }, bargeInAtMs: 400, pace: { kind: 'realtime', speed: 4 } }, { latency: DEFAULT_LATENCY });
    assert.deepEqual(outcome, { status: 'completed' });
    const firstAudio = timeline.received.find((e) => e.kind === 'audio')!;
    const resumed = timeline.sent.find((f) => f.kind === 'audio' && f.input === 1)!;
    assert.ok(resumed.t >= firstAudio.t + 400 / 4, 'the second utterance waited 400 ms of audio (100 ms at 4x) into the answer');
    assert.equal(metrics.inputs[1]!.barge_in_cancelled, 1);
    assert.ok(metrics.inputs[1]!.barge_in_stop_ms! > 0);
  });

  it('--barge-in-at-ms is refused where no server would hear the user over its answer', async () => {
    await assert.rejects(run({ protocol: 'openai-realtime', turnsPerSession: 2, bargeInAtMs: 400 }), /--barge-in-at-ms needs a speech-to-speech --protocol with --turn-detection server_vad/);
    await assert.rejects(run({ protocol: 'openai-realtime', turnDetection: VAD, bargeInAtMs: 400 }), /--turns-per-session 2 or more/);
  });

  it('--wait-for-answer: under server VAD the next utterance streams only once the last one is answered', async () => {
    const { timeline, outcome } = await session({ protocol: 'openai-realtime', turnDetection: VAD, turnsPerSession: 2, padding: { trailMs: 700 }, waitForAnswer: true });
    assert.deepEqual(outcome, { status: 'completed' });
    const firstDone = timeline.received.find((e) => e.kind === 'response_done')!;
    const secondAudio = timeline.sent.find((f) => f.kind === 'audio' && f.input === 1)!;
    assert.ok(secondAudio.t >= firstDone.t, 'the second utterance waited for the first answer');
    // Its chunks keep their real-time spacing from where the stream resumed: no burst to catch up.
    assert.ok(secondAudio.plannedMs! >= firstDone.t);
    assert.deepEqual(spoken(timeline).map(normalize), REFERENCES.map((r) => normalize(`You said ${r}`)));
  });

  it('cut-mid-response: the connection closed halfway through the answer is an abnormal close', async () => {
    const { outcome, timeline } = await session({ protocol: 'openai-realtime' }, { faults: [parseFaultScenario('cut-mid-response')] });
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.failure.closeCode, 1011);
    assert.ok(timeline.received.some((e) => e.kind === 'audio'), 'some audio came first');
  });
});
