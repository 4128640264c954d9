import { sessionEndMs, TASKS, type SpeechAnalysis, type Task } from '../timeline/types.js';
import type { InputView, ResponseView, SessionView } from '../views/session-view.js';
import { maxOf, mean } from './stats.js';
import { wordEmissionLatencies } from './emission.js';
import { pooledErrors, scoredInputs } from './quality.js';
import { errorRate, type EditCounts } from './wer.js';
import { ANCHORS as A } from './anchors.js';
import * as S2S from './s2s.js';
import type { Anchor } from './anchors.js';
import { audioOutMs, between, charsOf, chunkGaps, TTS_ANCHORS as T } from './tts.js';

/**
 * The metric catalog: every figure voxbench reports, defined once. Each entry declares
 * its unit, the tasks it applies to, tags that say where it belongs, which direction is
 * better, and either two named anchors (an interval from one event to the next), a
 * function of one view, samples of one view, or a reduction over a corpus. Console,
 * Markdown, CSV, HTML, SLOs and the progress line all pick metrics from here by task and
 * tag, so adding one entry makes a metric appear everywhere.
 */
export type Unit = 'ms' | 'ratio' | 'bytes' | 'count';

/** Where a metric belongs: the headline figures, or a family. */
export type Tag = 'headline' | 'latency' | 'quality' | 'throughput' | 'transport' | 'client';

/** Which way is better, for colouring comparisons; `neither` for quantities. */
export type Better = 'lower' | 'higher' | 'neither';

interface Base {
  /** Name with unit suffix, e.g. `ttft_ms`. */
  name: string;
  unit: Unit;
  tasks: readonly Task[];
  tags: readonly Tag[];
  better: Better;
  description: string;
}

/** An interval between two anchors, or a quantity computed from one view. */
type Measure<V> = { from: Anchor<V>; to: Anchor<V> } | { quantity: string; value(view: V): number | undefined };

export type MetricDefinition =
  | (Base & { scope: 'input' } & Measure<InputView>)
  | (Base & { scope: 'response' } & Measure<ResponseView>)
  | (Base & { scope: 'session' } & Measure<SessionView>)
  /** Many values per input, pooled into one distribution (e.g. every inter-text gap). */
  | (Base & { scope: 'input_samples'; from: string; to: string; samples(view: InputView): number[] })
  /**
   * One value over all measured completed sessions of a benchmark. `resample` is the
   * unit its bootstrap interval redraws: whole sessions (the default), or inputs, each
   * then reduced as a view of that one input.
   */
  | (Base & { scope: 'corpus'; quantity: string; reduce(views: readonly SessionView[]): number | null; resample?: 'sessions' | 'inputs' });

export type Scope = MetricDefinition['scope'];

/** A metric with one value per view. */
export type PointMetric = Extract<MetricDefinition, { scope: 'input' | 'response' | 'session' }>;

/** A metric's value on one view of its scope: the interval between its anchors, or its function. */
export function measure(metric: PointMetric, view: InputView | ResponseView | SessionView): number | undefined {
  return measureOn(metric as Measure<typeof view>, view);
}

/** A value that is not finite (a division by a zero duration) is no figure at all. */
function measureOn<V>(metric: Measure<V>, view: V): number | undefined {
  const value = 'value' in metric ? metric.value(view) : spanOf(metric, view);
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

function spanOf<V>(metric: Exclude<Measure<V>, { value: unknown }>, view: V): number | undefined {
  const from = metric.from.at(view);
  const to = metric.to.at(view);
  return from === undefined || to === undefined ? undefined : to - from;
}

const ALL = TASKS;
const STT: readonly Task[] = ['stt'];
/** Speech to text, streamed or as one request per recording. */
const TRANSCRIPTION: readonly Task[] = ['stt', 'batch_stt'];
const BATCH_STT: readonly Task[] = ['batch_stt'];
/** Tasks whose audio is streamed in chunks (a batch request's recording is one body). */
const STREAMED: readonly Task[] = ['stt', 'tts', 's2s'];
const SCORED = "after the input's normalizer (each input records its own; see the summary's quality)";
/**
 * Speech-to-speech figures keep vLLM-Omni's definitions under names of their own: names
 * are unique across tasks (`metricByName`, SLOs and compare resolve a name to one
 * entry), so the per-response TTFT is `response_ttft_ms` (vLLM-Omni's
 * `duplex_response_ttft_ms`), never the transcription `ttft_ms`.
 */
const S2S_TASK: readonly Task[] = ['s2s'];
const since = (from: number | undefined, to: number | undefined): number | undefined => (from === undefined || to === undefined ? undefined : to - from);
/** Speech generation: streamed (`tts`), and one body per request (`batch_tts`). */
const TTS: readonly Task[] = ['tts'];
const SPEECH: readonly Task[] = ['tts', 'batch_tts'];

/** Audio of the input: the span its chunks streamed, or the whole recording one request carried. */
const audioMs = (v: InputView): number | undefined => {
  const first = v.media[0];
  const last = v.media[v.media.length - 1];
  if (first?.audioStartMs !== undefined && last?.audioEndMs !== undefined) return last.audioEndMs - first.audioStartMs;
  return v.request && v.plan?.kind === 'audio' ? v.plan.audioEndMs - v.plan.audioStartMs : undefined;
};
const interval = <V>(from: Anchor<V>, to: Anchor<V>, view: V): number | undefined => {
  const start = from.at(view);
  const end = to.at(view);
  return start === undefined || end === undefined ? undefined : end - start;
};
/** Processing time: the turn from its first chunk to its final (streams), or the request to its response complete (HTTP). */
const processingMs = (v: InputView): number | undefined =>
  v.request ? interval(A.input.request_start, A.input.response_end, v) : interval(A.input.first_sent, A.input.transcript_final, v);

/** A per-input count of one kind of word edit, pooled in the summary's quality. */
function wordEdit(name: string, kind: keyof EditCounts, description: string): MetricDefinition {
  return {
    name, unit: 'count', scope: 'input', tasks: TRANSCRIPTION, tags: ['quality'], better: 'lower',
    quantity: `word ${kind} of the final transcript against the reference, ${SCORED}`, description,
    value: (v) => v.wordErrors()?.[kind],
  };
}

/** A per-session transport count: a quantity, not an interval. */
function transportCounter(name: string, unit: Unit, quantity: string, description: string, value: (s: SessionView) => number): MetricDefinition {
  return { name, unit, scope: 'session', tasks: ALL, tags: ['transport'], better: 'neither', quantity, description, value };
}

const catalog: MetricDefinition[] = [
  {
    name: 'connect_ms', unit: 'ms', scope: 'session', tasks: ALL, tags: ['latency', 'transport'], better: 'lower',
    from: A.session.start, to: A.session.open,
    description: 'Connection setup: TCP, TLS and the WebSocket upgrade.',
  },
  {
    name: 'ttft_ms', unit: 'ms', scope: 'input', tasks: TRANSCRIPTION, tags: ['headline', 'latency'], better: 'lower',
    from: A.input.start, to: A.input.transcript_first_text,
    description: 'Time to first text: how soon live captions can begin. Empty deltas never count. For a request, from its start (the upload included); without --stream the first text is the whole answer.',
  },  {
    name: 'finalization_ms', unit: 'ms', scope: 'input', tasks: STT, tags: ['headline', 'latency'], better: 'lower',
    from: A.input.eos_sent, to: A.input.transcript_final,
    description: "How long a voice agent waits after speech ends. Includes the server's VAD wait when silence triggers the final; the input's eos_source says where end of speech came from.",
  },  {
    name: 'commit_to_flush_ms', unit: 'ms', scope: 'input', tasks: STT, tags: ['headline', 'latency'], better: 'lower',
    from: A.input.end_sent, to: A.input.transcript_final,
    description: 'How long the server takes to finish a submitted turn; starts at an explicit client event.',
  },
  {
    name: 'ttlt_ms', unit: 'ms', scope: 'input', tasks: STT, tags: ['headline', 'latency'], better: 'lower',
    from: A.input.last_sent, to: A.input.transcript_last_event,
    description: 'Time to last text: the lag of the last transcript event behind the last audio. Negative when audio is still sent after the last transcript event (trailing silence under server VAD).',
  },
  {
    name: 'avg_rtt_ms', unit: 'ms', scope: 'input', tasks: STT, tags: ['headline', 'latency'], better: 'lower',
    quantity: "mean receive time of the input's text events minus the mean send time of its audio chunks",
    description: 'Approximate round trip: assumes text follows audio uniformly in time; more stable than TTFT or TTLT. It compares two means, not paired events, so it can be negative.',
    value: (v) =>
      v.transcript.textEvents.length > 0 && v.media.length > 0 ? mean(v.transcript.textEvents.map((e) => e.t)) - mean(v.media.map((c) => c.t)) : undefined,
  },
  {
    name: 'word_emission_ms', unit: 'ms', scope: 'input_samples', tasks: STT, tags: ['latency'], better: 'lower',
    from: "send time of the chunk holding a reference word's end (dataset word timings)", to: 'receipt of that word in the transcript, paired by the WER alignment',
    description: 'The true round trip per word; only inputs with word timings count, and only words the server got right.',
    samples: wordEmissionLatencies,
  },


  {
    name: 'upload_ms', unit: 'ms', scope: 'input', tasks: BATCH_STT, tags: ['latency', 'transport'], better: 'lower',
    from: A.input.request_start, to: A.input.upload_end,
    description: 'Request start to the last byte of the body written: connection (unless reused) and upload.',
  },
  {
    name: 'processing_ms', unit: 'ms', scope: 'input', tasks: BATCH_STT, tags: ['headline', 'latency'], better: 'lower',
    from: A.input.request_start, to: A.input.response_end,
    description: 'Request start to the response complete: what a batch job waits per recording, upload included.',
  },
  {
    name: 'server_processing_ms', unit: 'ms', scope: 'input', tasks: BATCH_STT, tags: ['latency'], better: 'lower',
    quantity: "the server's own timing from its response headers: openai-processing-ms, else the longest Server-Timing duration",
    description: "The server's account of its processing, beside the client's processing_ms; only servers that send one.",
    value: (v) => {
      const timing = v.request?.serverTiming;
      if (!timing) return undefined;
      return timing['openai-processing-ms'] ?? maxOf(Object.values(timing));
    },
  },
  {
    name: 'itl_ms', unit: 'ms', scope: 'input_samples', tasks: TRANSCRIPTION, tags: ['latency'], better: 'lower',
    from: 'a text event received', to: 'the next text event received',
    description: 'Inter-text latency: every gap between consecutive text events, pooled.',
    samples: (v) => v.transcript.textEvents.slice(1).map((e, i) => e.t - v.transcript.textEvents[i]!.t),
  },
  {
    name: 'turn_ms', unit: 'ms', scope: 'input', tasks: STT, tags: ['latency'], better: 'lower',
    from: A.input.first_sent, to: A.input.transcript_final,
    description: 'Processing time of the turn, audio streaming included.',
  },
  {
    name: 'audio_ms', unit: 'ms', scope: 'input', tasks: ['stt', 'batch_stt', 's2s'], tags: ['throughput'], better: 'neither',
    quantity: 'audio streamed in the input, or the recording its request carried',
    description: 'Duration of the audio sent in the input.',
    value: audioMs,
  },
  {
    name: 'rtf', unit: 'ratio', scope: 'input', tasks: TRANSCRIPTION, tags: ['throughput'], better: 'lower',
    quantity: 'turn_ms (a request: processing_ms) / audio_ms',
    description: 'Real-time factor: processing time over audio duration. About 1 plus the tail under real-time pacing.',
    value: (v) => {
      const processing = processingMs(v);
      const audio = audioMs(v);
      return processing !== undefined && audio ? processing / audio : undefined;
    },
  },
  {
    name: 'rtfx', unit: 'ratio', scope: 'input', tasks: TRANSCRIPTION, tags: ['headline', 'throughput'], better: 'higher',
    quantity: 'audio_ms / turn_ms (a request: processing_ms)',
    description: 'Inverse real-time factor: audio duration over processing time.',
    value: (v) => {
      const processing = processingMs(v);
      const audio = audioMs(v);
      return processing && audio !== undefined ? audio / processing : undefined;
    },
  },
  {
    name: 'wer', unit: 'ratio', scope: 'input', tasks: TRANSCRIPTION, tags: ['quality'], better: 'lower',
    quantity: `word error rate of the final transcript against the reference, ${SCORED}`,
    description: '(substitutions + deletions + insertions) / reference words, for one input; the summary also pools errors over the corpus.',
    value: (v) => {
      const errors = v.wordErrors();
      return errors ? errorRate(errors) ?? undefined : undefined;
    },
  },
  {
    name: 'cer', unit: 'ratio', scope: 'input', tasks: TRANSCRIPTION, tags: ['quality'], better: 'lower',
    quantity: `character error rate of the final transcript against the reference, ${SCORED}`,
    description: 'Character edits over reference characters, the spaces between normalized words included (as jiwer counts them): the figure for languages written without spaces, and one that counts a near miss as less than the whole word WER counts.',
    value: (v) => {
      const errors = v.charErrors();
      return errors ? errorRate(errors) ?? undefined : undefined;
    },
  },
  wordEdit('word_substitutions', 'substitutions', 'Reference words the transcript got wrong.'),
  wordEdit('word_deletions', 'deletions', 'Reference words missing from the transcript.'),
  wordEdit('word_insertions', 'insertions', 'Transcript words with no reference word.'),
  {
    name: 'send_lag_ms', unit: 'ms', scope: 'input_samples', tasks: ALL, tags: ['client'], better: 'lower',
    from: 'planned send time of a media chunk', to: 'actual send time',
    description: "The client's own lateness against its real-time schedule; unpaced chunks have none.",
    samples: (v) => v.media.flatMap((c) => (typeof c.plannedMs === 'number' ? [c.t - c.plannedMs] : [])),
  },
  {
    name: 'start_lag_ms', unit: 'ms', scope: 'session', tasks: ALL, tags: ['client'], better: 'lower',
    from: A.session.planned_start, to: A.session.start,
    description: "How late the client started the session against its load profile's plan; open-loop lag is recorded, never absorbed.",
  },
  {
    name: 'update_ms', unit: 'ms', scope: 'session', tasks: ALL, tags: ['latency'], better: 'lower',
    from: A.session.update_sent, to: A.session.update_confirmed,
    description: 'How fast live settings take effect; only where the dialect confirms updates.',
  },
  {
    name: 'audio_sent_ms', unit: 'ms', scope: 'session', tasks: STREAMED, tags: ['transport'], better: 'neither',
    quantity: 'audio streamed in the session, all inputs',
    description: 'Audio handed to the socket; compare with audio_acked_ms.',
    value: (s) => s.inputs.reduce((end, v) => Math.max(end, v.media[v.media.length - 1]?.audioEndMs ?? 0), 0),
  },
  {
    name: 'audio_acked_ms', unit: 'ms', scope: 'session', tasks: STREAMED, tags: ['transport'], better: 'neither',
    quantity: "audio the server acknowledged consuming (its last progress event)",
    description: 'Only for servers that acknowledge consumption; below audio_sent_ms means audio was not taken in.',
    value: (s) => {
      const acks = s.timeline.received.filter((e) => e.kind === 'progress');
      return acks.length > 0 ? maxOf(acks.map((e) => e.audioEndMs ?? 0)) : undefined;
    },
  },
  {
    name: 'session_ms', unit: 'ms', scope: 'session', tasks: ALL, tags: ['transport'], better: 'neither',
    from: A.session.start, to: A.session.close,
    description: 'Connection lifetime, as a deployment dashboard sees it.',
  },
  transportCounter('bytes_sent', 'bytes', 'payload bytes sent', 'Payload bytes of every frame or request body the client sent.', (s) => s.timeline.counters.bytesSent),
  transportCounter('bytes_received', 'bytes', 'payload bytes received', 'Payload bytes of every frame or response body the server sent.', (s) => s.timeline.counters.bytesReceived),
  transportCounter('frames_sent', 'count', 'frames sent', 'Frames (or requests) the client sent.', (s) => s.timeline.counters.framesSent),
  transportCounter('frames_received', 'count', 'frames received', 'Frames (or response body chunks) the server sent.', (s) => s.timeline.counters.framesReceived),
  {
    name: 'protocol_anomalies', unit: 'count', scope: 'session', tasks: ['stt', 'batch_stt', 's2s'], tags: ['transport'], better: 'lower',
    quantity: "events out of the protocol's order: finals that answered no input, response events out of their response's order",
    description: "Finals that arrived while no end control awaited one (before the turn's final commit, or an extra one), or that repeat an item's final; speech to speech, a response's done before its creation or for no response, a second done or creation, audio after its done, an absurd audio_duration_ms: recorded in the timeline, never a turn's final or text, and a response any of them names is in no figure.",
    value: (s) => s.anomalies.length,
  },
  {
    name: 'corpus_wer', unit: 'ratio', scope: 'corpus', tasks: TRANSCRIPTION, tags: ['quality'], better: 'lower', resample: 'inputs',
    quantity: `word errors summed over every input with a reference and a final transcript, over their reference words, ${SCORED}`,
    description: 'Corpus WER, as leaderboards pool it: long utterances weigh more than short ones. Its interval resamples turns.',
    reduce: (views) => errorRate(pooledErrors(scoredInputs(views)).words),
  },
  {
    name: 'corpus_cer', unit: 'ratio', scope: 'corpus', tasks: TRANSCRIPTION, tags: ['quality'], better: 'lower', resample: 'inputs',
    quantity: `character errors summed over every input with a reference and a final transcript, over their reference characters, ${SCORED}`,
    description: 'Corpus CER, pooled as corpus WER is. Its interval resamples turns.',
    reduce: (views) => errorRate(pooledErrors(scoredInputs(views)).chars),
  },
  {
    name: 'corpus_rtfx', unit: 'ratio', scope: 'corpus', tasks: BATCH_STT, tags: ['headline', 'throughput'], better: 'higher',
    quantity: "total audio of the completed sessions over the benchmark's wall time, first start to last end",
    description: "The leaderboards' RTFx: audio transcribed per second of wall time, concurrency included; the same number as audio hours per hour.",
    reduce: (views) => {
      let audio = 0;
      let start = Infinity;
      let end = -Infinity;
      for (const view of views) {
        for (const input of view.inputs) audio += audioMs(input) ?? 0;
        start = Math.min(start, view.timeline.startMs);
        end = Math.max(end, sessionEndMs(view.timeline));
      }
      return end > start ? audio / (end - start) : null;
    },
  },
  {
    name: 'connection_reuse', unit: 'ratio', scope: 'corpus', tasks: ['batch_stt', 'batch_tts'], tags: ['transport'], better: 'higher',
    quantity: 'requests sent over a kept-alive connection, over all requests',
    description: 'How much of the run reused connections (keep-alive pool); 0 means every request paid for a new connection.',
    reduce: (views) => {
      const requests = views.flatMap((v) => (v.timeline.transport.kind === 'http' ? v.timeline.transport.requests : []));
      const known = requests.filter((r) => r.reusedConnection !== undefined);
      return known.length > 0 ? known.filter((r) => r.reusedConnection).length / known.length : null;
    },
  },
  {
    name: 'connection_retries', unit: 'count', scope: 'corpus', tasks: ['batch_stt', 'batch_tts'], tags: ['transport'], better: 'lower',
    quantity: 'requests sent once more on a new connection, their kept-alive one having died before any byte of the answer',
    description: 'A server that closes connections after each answer without saying so, or whose idle timeout races the client; the retried requests are timed from the attempt that got the answer.',
    reduce: (views) => views.reduce((n, v) => n + (v.timeline.transport.kind === 'http' ? v.timeline.transport.requests.filter((r) => r.retries).length : 0), 0),
  },
  {
    name: 'response_ttft_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['headline', 'latency'], better: 'lower',
    quantity: 'first non-empty text or transcript delta of the response minus its start (the commit sent when the client committed, else response.created received)',
    description: "vLLM-Omni's per-response TTFT: how soon the answer's words begin.",
    value: (r) => since(S2S.responseStart(r), S2S.firstText(r)),
  },
  {
    name: 'response_ttfp_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['headline', 'latency'], better: 'lower',
    quantity: 'first non-empty audio delta of the response minus its start (the commit sent when the client committed, else response.created received)',
    description: "vLLM-Omni's per-response time to first audio packet.",
    value: (r) => since(S2S.responseStart(r), S2S.firstAudio(r)),
  },
  {
    name: 'response_rtf', unit: 'ratio', scope: 'response', tasks: S2S_TASK, tags: ['headline', 'throughput'], better: 'lower',
    quantity: "(last audio packet − response.created received) / the response's emitted audio (its largest cumulative metadata.audio_duration_ms, else the payloads' duration)",
    description: 'Generation real-time factor of one answer; below 1 keeps ahead of playback.',
    value: S2S.responseRtf,
  },
  {
    name: 'stream_ttft_ms', unit: 'ms', scope: 'session', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "first non-empty response text or transcript delta minus the input stream's start (first audio sent)",
    description: "vLLM-Omni's session stream_ttft_ms.",
    value: S2S.streamTtft,
  },
  {
    name: 'stream_ttfp_ms', unit: 'ms', scope: 'session', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "first non-empty response audio delta minus the input stream's start (first audio sent)",
    description: "vLLM-Omni's session stream_ttfp_ms.",
    value: S2S.streamTtfp,
  },
  {
    name: 'stream_rtf', unit: 'ratio', scope: 'session', tasks: S2S_TASK, tags: ['throughput'], better: 'lower',
    quantity: "(last audio received − input stream start) / the sum of each response's emitted audio",
    description: "vLLM-Omni's session stream_rtf.",
    value: S2S.streamRtf,
  },
  {
    name: 'voice_to_voice_ms', unit: 'ms', scope: 'input', tasks: S2S_TASK, tags: ['headline', 'latency'], better: 'lower',
    quantity: "first audio of the answer received minus the end of the user's speech (send time of the chunk holding it; eos_source says where it came from)",
    description: "The delay a caller hears between finishing a sentence and the agent's voice (LiveKit's end-to-end latency).",
    value: S2S.voiceToVoice,
  },
  {
    name: 'agent_playback_start_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: `playback start of a player that buffers ${S2S.AGENT_PLAYBACK_BUFFER_MS} ms, minus the response's start`,
    description: "When the listener starts hearing the answer.",
    value: (r) => since(S2S.responseStart(r), r.playback(S2S.AGENT_PLAYBACK_BUFFER_MS).startMs),
  },
  {
    name: 'agent_stall_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: `time the answer's playback waited for audio after it started (player buffering ${S2S.AGENT_PLAYBACK_BUFFER_MS} ms)`,
    description: 'Gaps the listener hears inside an answer: audio that came slower than it plays.',
    value: (r) => (r.audio.chunks.length > 0 ? r.playback(S2S.AGENT_PLAYBACK_BUFFER_MS).stallMs : undefined),
  },
  {
    name: 'barge_in_stop_ms', unit: 'ms', scope: 'input', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "the agent's cancelled mark (or its last audio after it) minus the send time of the user's speech over it; uncancelled, its last audio",
    description: 'How fast the agent stops talking when interrupted; only inputs whose speech started while a response was in progress.',
    value: S2S.bargeInStop,
  },
  {
    name: 'barge_in_cancelled', unit: 'ratio', scope: 'input', tasks: S2S_TASK, tags: ['quality'], better: 'higher',
    quantity: 'per barge-in: 1 when the interrupted response ended cancelled, else 0',
    description: 'Whether the server cancelled at all when the user spoke over it; the mean is the share.',
    value: (v) => (v.bargeIn ? (v.bargeIn.response.status === 'cancelled' ? 1 : 0) : undefined),
  },
  {
    name: 'unprompted_responses', unit: 'count', scope: 'session', tasks: S2S_TASK, tags: ['quality'], better: 'neither',
    quantity: 'responses that started with no end of speech sent since the previous response started',
    description: 'The model speaking unprompted (full-duplex models may, by design).',
    value: S2S.unpromptedResponses,
  },
  {
    name: 'server_ttft_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "the server's own response_request_metrics.ttft_ms on response.created (its measurement_origin kept in duplex_metrics.json)",
    description: 'TTFT as the server measured it, beside the client-measured response_ttft_ms.',
    value: (r) => r.started?.serverMetrics?.ttftMs,
  },
  {
    name: 'server_ttfp_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "the server's own response_request_metrics.ttfp_ms on response.created (its measurement_origin kept in duplex_metrics.json)",
    description: 'TTFP as the server measured it, beside the client-measured response_ttfp_ms.',
    value: (r) => r.started?.serverMetrics?.ttfpMs,
  },
  {
    name: 'ttfb_ms', unit: 'ms', scope: 'input', tasks: SPEECH, tags: ['latency', 'transport'], better: 'lower',
    from: T.text_first_sent, to: T.first_frame,
    description: 'Time to first byte: the first frame of any kind the server sent back, announcements and WAV headers included.',
  },
  {
    name: 'ttfa_ms', unit: 'ms', scope: 'input', tasks: SPEECH, tags: ['headline', 'latency'], better: 'lower',
    from: T.text_submitted, to: T.first_audio,
    description: 'Time to first audio: from the send that forces synthesis to the first real audio samples. Negative when a server starts speaking before the text ends (ElevenLabs after 120 characters, sentence splitting).',
  },
  {
    name: 'ftts_ms', unit: 'ms', scope: 'input', tasks: TTS, tags: ['headline', 'latency'], better: 'lower',
    from: T.text_first_streamed, to: T.first_audio,
    description: "First token to speech (Picovoice's FTTS): only when the text is streamed like an LLM's output (--text-rate), from its first token to the first audio.",
  },
  {
    name: 'playback_start_ms', unit: 'ms', scope: 'input', tasks: TTS, tags: ['headline', 'latency'], better: 'lower',
    from: T.text_submitted, to: T.playback_start,
    description: 'When a listener hears the first sample: a simulated player starts once --playback-buffer-ms of audio is buffered (or the stream has ended).',
  },
  {
    name: 'stall_count', unit: 'count', scope: 'input', tasks: TTS, tags: ['headline', 'quality'], better: 'lower',
    quantity: 'underruns of the simulated real-time player after it started, until the last audio',
    description: 'Times playback ran dry and the listener heard a gap.',
    value: (v) => (v.audio.chunks.length > 0 ? v.playback().stalls.length : undefined),
  },
  {
    name: 'stall_ms', unit: 'ms', scope: 'input', tasks: TTS, tags: ['quality'], better: 'lower',
    quantity: 'total time the simulated player waited for audio after it started',
    description: 'Silence the listener heard that the speech did not have.',
    value: (v) => (v.audio.chunks.length > 0 ? v.playback().stallMs : undefined),
  },
  {
    name: 'chunk_gap_ms', unit: 'ms', scope: 'input_samples', tasks: TTS, tags: ['latency'], better: 'lower',
    from: 'an audio chunk received', to: 'the next audio chunk received',
    description: 'Inter-chunk gap: every gap between consecutive audio chunks, pooled (its p95 and max are the tail a player must buffer for).',
    samples: chunkGaps,
  },
  {
    name: 'gen_rtf', unit: 'ratio', scope: 'input', tasks: SPEECH, tags: ['headline', 'throughput'], better: 'lower',
    quantity: '(last audio received − text submitted) / audio_out_ms',
    description: 'Generation real-time factor: below 1 the server generates faster than the audio plays.',
    value: (v) => {
      const generation = between(v, 'text_submitted', 'last_audio');
      const audio = audioOutMs(v);
      return generation !== undefined && audio ? generation / audio : undefined;
    },
  },
  {
    name: 'total_ms', unit: 'ms', scope: 'input', tasks: SPEECH, tags: ['headline', 'latency'], better: 'lower',
    from: T.text_submitted, to: T.speech_end,
    description: 'Total generation time: from the send that forces synthesis to the last audio or the end of the response.',
  },
  {
    name: 'audio_out_ms', unit: 'ms', scope: 'input', tasks: SPEECH, tags: ['throughput'], better: 'neither',
    quantity: 'duration of the audio received, from the payload lengths',
    description: 'Generated audio duration.',
    value: audioOutMs,
  },
  {
    name: 'chars', unit: 'count', scope: 'input', tasks: SPEECH, tags: ['throughput'], better: 'neither',
    quantity: "characters (code points) of the input's text",
    description: 'Input size, for cost per million characters.',
    value: charsOf,
  },
  {
    name: 'chars_per_s', unit: 'ratio', scope: 'input', tasks: SPEECH, tags: ['throughput'], better: 'higher',
    quantity: 'chars / total_ms, per second',
    description: 'Characters of text turned into speech per second of generation.',
    value: (v) => {
      const chars = charsOf(v);
      const total = between(v, 'text_submitted', 'speech_end');
      return chars !== undefined && total ? (chars * 1000) / total : undefined;
    },
  },
  // Speech generation's quality, from the after-run analysis of the received audio (`timeline.analysis`).
  {
    name: 'ttfa_audible_ms', unit: 'ms', scope: 'input', tasks: SPEECH, tags: ['latency'], better: 'lower',
    quantity: 'time to first audio plus the leading silence in it: text submitted to the first audible sound (energy onset, after the run)',
    description: "What a listener waits for: the first audio payload's arrival plus the silence it opens with (the first 10 ms frame with mean-removed RMS of 0.01 or more).",
    value: (v) => {
      const ttfa = between(v, 'text_submitted', 'first_audio');
      const silence = v.analysis?.leadingSilenceMs;
      return ttfa === undefined || silence === undefined || silence === null ? undefined : ttfa + silence;
    },
  },
  {
    name: 'tts_wer', unit: 'ratio', scope: 'input', tasks: SPEECH, tags: ['quality'], better: 'lower',
    quantity: `intelligibility: word error rate of the generated audio as a transcription server heard it, against the text sent, after the normalizer the analysis names (whisper-english)`,
    description: 'The round trip: the received audio sent, after the run, to the --asr-target transcription server (the built-in one by default).',
    value: (v) => {
      const asr = v.analysis?.asr;
      return asr && 'errors' in asr ? errorRate(asr.errors) ?? undefined : undefined;
    },
  },
  {
    name: 'tts_corpus_wer', unit: 'ratio', scope: 'corpus', tasks: SPEECH, tags: ['quality'], better: 'lower',
    quantity: `intelligibility word errors summed over every analysed input, over their words (whisper-english)`,
    description: 'Corpus intelligibility WER of the round trip: long texts weigh more than short ones.',
    reduce: (views) => {
      const total = { substitutions: 0, deletions: 0, insertions: 0, words: 0 };
      for (const asr of views.flatMap((view) => view.inputs.map((i) => i.analysis?.asr))) {
        if (!asr || !('errors' in asr)) continue;
        for (const key of Object.keys(total) as Array<keyof typeof total>) total[key] += asr.errors[key];
      }
      return errorRate(total);
    },
  },
  speechLevel('clipping_ratio', 'samples at full scale, as a share of the received audio', (a) => a.clippingRatio),
  speechLevel('silence_ratio', '20 ms frames below the speech threshold (RMS 0.01), as a share of the received audio', (a) => a.silenceRatio),
  {
    name: 'audio_format_problems', unit: 'count', scope: 'input', tasks: SPEECH, tags: ['quality'], better: 'lower',
    quantity: 'ways the received audio disagrees with what was declared (WAV header fields, sample format, whole samples)',
    description: 'Found by the after-run analysis; each is listed in the session\'s timeline (`analysis`).',
    value: (v) => v.analysis?.formatProblems.length,
  },
];

/** A level check of the received audio, from the after-run analysis. */
function speechLevel(name: string, quantity: string, value: (a: SpeechAnalysis) => number): MetricDefinition {
  return {
    name, unit: 'ratio', scope: 'input', tasks: SPEECH, tags: ['quality'], better: 'lower', quantity,
    description: 'From the after-run analysis of the received audio.',
    value: (v) => (v.analysis ? value(v.analysis) : undefined),
  };
}

/** Every metric, in display order. Extend it with `addMetric`. */
export const METRICS: readonly MetricDefinition[] = catalog;

/** Adds a metric to the catalog (every output and SLO then knows it); returns its removal. */
export function addMetric(metric: MetricDefinition): () => void {
  if (catalog.some((m) => m.name === metric.name)) throw new Error(`a metric named ${metric.name} is already in the catalog`);
  catalog.push(metric);
  return () => {
    const at = catalog.indexOf(metric);
    if (at >= 0) catalog.splice(at, 1);
  };
}

export function metricByName(name: string): MetricDefinition | undefined {
  return catalog.find((m) => m.name === name);
}

/** The metrics of `task` (every task when omitted) with any of `tags` (any tag when omitted), in catalog order. */
export function metricsFor(task?: Task, ...tags: Tag[]): MetricDefinition[] {
  return catalog.filter((m) => (task === undefined || m.tasks.includes(task)) && (tags.length === 0 || tags.some((t) => m.tags.includes(t))));
}

/** A metric's start and end as prose (the quantity, for non-intervals), for people. */
export function definitionOf(metric: MetricDefinition): { from: string; to: string; anchors?: [string, string] } {
  if ('quantity' in metric) return { from: metric.quantity, to: '' };
  if (typeof metric.from === 'string') return { from: metric.from, to: metric.to as string };
  return { from: metric.from.description, to: (metric.to as Anchor<unknown>).description, anchors: [metric.from.name, (metric.to as Anchor<unknown>).name] };
}

/** The catalog as plain data, for reports and `voxbench metrics`. */
export function describeMetrics(): MetricDescription[] {
  return catalog.map((m) => ({ name: m.name, unit: m.unit, scope: m.scope, tasks: [...m.tasks], tags: [...m.tags], better: m.better, ...definitionOf(m), description: m.description }));
}

export interface MetricDescription {
  name: string;
  unit: Unit;
  scope: Scope;
  tasks: Task[];
  tags: Tag[];
  better: Better;
  from: string;
  to: string;
  /** For intervals: the names of the start and end anchors. */
  anchors?: [string, string];
  description: string;
}
