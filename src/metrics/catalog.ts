import type { SessionTimeline } from '../timeline/types.js';
import { maxOf, mean } from './stats.js';
import { wordEmissionLatencies } from './emission.js';
import type { TurnView } from './turns.js';
import { errorRate, NORMALIZER, wordErrors } from './wer.js';

/**
 * The metric catalog: every figure voxbench reports, defined once. Reports, CSV
 * headers, HTML tooltips and SLO expressions all read their names, units and
 * definitions from here. Each metric is a pure function of a session timeline.
 */
export type Unit = 'ms' | 'ratio' | 'bytes' | 'count';

interface MetricInfo {
  /** Name with unit suffix, e.g. `ttft_ms`. */
  name: string;
  unit: Unit;
  /** Start event (or the quantity, for sizes and ratios). */
  from: string;
  /** End event; empty when the metric is not an interval. */
  to: string;
  description: string;
}

/** One value per turn. */
export interface TurnMetric extends MetricInfo {
  scope: 'turn';
  value(turn: TurnView): number | undefined;
}

/** Many values per turn, pooled into one distribution (e.g. every inter-text gap). */
export interface TurnSamplesMetric extends MetricInfo {
  scope: 'turn_samples';
  samples(turn: TurnView): number[];
}

/** One value per session. */
export interface SessionMetric extends MetricInfo {
  scope: 'session';
  value(timeline: SessionTimeline): number | undefined;
}

export type MetricDefinition = TurnMetric | TurnSamplesMetric | SessionMetric;

const first = <T>(items: readonly T[]): T | undefined => items[0];
const last = <T>(items: readonly T[]): T | undefined => items[items.length - 1];

const turnMs = (t: TurnView): number | undefined =>
  t.final && t.chunks[0] ? t.final.t - t.chunks[0].sentMs : undefined;
const audioMs = (t: TurnView): number | undefined =>
  t.chunks.length > 0 ? last(t.chunks)!.audioEndMs - t.chunks[0]!.audioStartMs : undefined;
/** The chunk holding the turn's last speech sample. */
const eosChunk = (t: TurnView) => {
  const eos = t.plan?.speechEndMs;
  return eos === undefined ? undefined : t.chunks.find((c) => c.audioStartMs < eos && eos <= c.audioEndMs);
};

/** A per-session transport count: a quantity, not an interval. */
function transportCounter(name: string, unit: Unit, what: string, description: string, value: (s: SessionTimeline) => number): SessionMetric {
  return { name, unit, scope: 'session', from: what, to: '', description, value };
}

export const METRICS: readonly MetricDefinition[] = [
  {
    name: 'start_lag_ms', unit: 'ms', scope: 'session',
    from: 'planned start of the session (load profile)', to: 'actual connect start',
    description: "How late the client started the session against its load profile's plan; open-loop lag is recorded, never absorbed.",
    value: (s) => s.connectStartMs - s.plannedStartMs,
  },
  {
    name: 'connect_ms', unit: 'ms', scope: 'session',
    from: 'connect start', to: 'WebSocket open',
    description: 'Connection setup: TCP, TLS and the WebSocket upgrade.',
    value: (s) => (s.openMs === undefined ? undefined : s.openMs - s.connectStartMs),
  },
  {
    name: 'ttft_ms', unit: 'ms', scope: 'turn',
    from: "first audio chunk of the turn sent", to: 'first non-empty transcript text received',
    description: 'Time to first text: how soon live captions can begin. Empty deltas never count.',
    value: (t) => {
      const text = first(t.textEvents);
      return text && t.chunks[0] ? text.t - t.chunks[0].sentMs : undefined;
    },
  },
  {
    name: 'ttlt_ms', unit: 'ms', scope: 'turn',
    from: "last audio chunk of the turn sent", to: 'last transcript event received (the final included)',
    description: 'Time to last text: the lag of the last transcript event behind the last audio.',
    value: (t) => {
      const lastEvent = last(t.transcriptEvents);
      const lastChunk = last(t.chunks);
      return t.final && lastEvent && lastChunk ? lastEvent.t - lastChunk.sentMs : undefined;
    },
  },
  {
    name: 'avg_rtt_ms', unit: 'ms', scope: 'turn',
    from: "mean send time of the turn's audio chunks", to: 'mean receive time of its text events',
    description: 'Approximate round trip: assumes text follows audio uniformly in time; more stable than TTFT or TTLT.',
    value: (t) =>
      t.textEvents.length > 0 && t.chunks.length > 0
        ? mean(t.textEvents.map((e) => e.t)) - mean(t.chunks.map((c) => c.sentMs))
        : undefined,
  },
  {
    name: 'commit_to_flush_ms', unit: 'ms', scope: 'turn',
    from: 'final commit sent', to: 'final-flush signal received (transcription.done, or ...input_audio_transcription.completed)',
    description: 'How long the server takes to finish a submitted turn; starts at an explicit client event.',
    value: (t) => (t.final && t.finalCommit ? t.final.t - t.finalCommit.sentMs : undefined),
  },
  {
    name: 'finalization_ms', unit: 'ms', scope: 'turn',
    from: 'end of speech: send time of the chunk holding the last speech sample', to: "the turn's final transcript received",
    description: "How long a voice agent waits after speech ends. Includes the server's VAD wait when silence triggers the final; the turn's eos_source says where end of speech came from.",
    value: (t) => {
      const chunk = eosChunk(t);
      return t.final && chunk ? t.final.t - chunk.sentMs : undefined;
    },
  },
  {
    name: 'turn_ms', unit: 'ms', scope: 'turn',
    from: 'first audio chunk sent', to: 'final transcript received',
    description: 'Processing time of the turn, audio streaming included.',
    value: turnMs,
  },
  {
    name: 'audio_ms', unit: 'ms', scope: 'turn',
    from: 'audio streamed in the turn', to: '',
    description: 'Duration of the audio sent in the turn.',
    value: audioMs,
  },
  {
    name: 'rtf', unit: 'ratio', scope: 'turn',
    from: 'turn_ms / audio_ms', to: '',
    description: 'Real-time factor: processing time over audio duration. About 1 plus the tail under real-time pacing.',
    value: (t) => {
      const processing = turnMs(t);
      const audio = audioMs(t);
      return processing !== undefined && audio ? processing / audio : undefined;
    },
  },
  {
    name: 'rtfx', unit: 'ratio', scope: 'turn',
    from: 'audio_ms / turn_ms', to: '',
    description: 'Inverse real-time factor: audio duration over processing time.',
    value: (t) => {
      const processing = turnMs(t);
      const audio = audioMs(t);
      return processing && audio !== undefined ? audio / processing : undefined;
    },
  },
  {
    name: 'wer', unit: 'ratio', scope: 'turn',
    from: `word error rate of the final transcript against the reference, after the ${NORMALIZER} normalizer`, to: '',
    description: '(substitutions + deletions + insertions) / reference words, for one turn; the summary also pools errors over the corpus.',
    value: (t) => (t.plan?.reference && t.transcript !== undefined ? errorRate(wordErrors(t.plan.reference, t.transcript)) ?? undefined : undefined),
  },
  {
    name: 'word_emission_ms', unit: 'ms', scope: 'turn_samples',
    from: "send time of the chunk holding a reference word's end (dataset word timings)", to: 'receipt of that word in the transcript, paired by the WER alignment',
    description: 'The true round trip per word; only turns with word timings count, and only words the server got right.',
    samples: wordEmissionLatencies,
  },
  {
    name: 'itl_ms', unit: 'ms', scope: 'turn_samples',
    from: 'a text event received', to: 'the next text event received',
    description: 'Inter-text latency: every gap between consecutive text events, pooled.',
    samples: (t) => t.textEvents.slice(1).map((e, i) => e.t - t.textEvents[i]!.t),
  },
  {
    name: 'send_lag_ms', unit: 'ms', scope: 'turn_samples',
    from: 'planned send time of an audio chunk', to: 'actual send time',
    description: "The client's own lateness against its real-time schedule; unpaced chunks have none.",
    samples: (t) => t.chunks.flatMap((c) => (c.plannedMs === null ? [] : [c.sentMs - c.plannedMs])),
  },
  {
    name: 'update_ms', unit: 'ms', scope: 'session',
    from: 'mid-stream session.update sent', to: 'the next session.updated received',
    description: 'How fast live settings take effect; only where the dialect confirms updates.',
    value: (s) => {
      const update = s.updates[0];
      const confirmed = update && s.events.find((e) => e.kind === 'session_updated' && e.t >= update.sentMs);
      return update && confirmed ? confirmed.t - update.sentMs : undefined;
    },
  },
  {
    name: 'audio_sent_ms', unit: 'ms', scope: 'session',
    from: 'audio streamed in the session, all turns', to: '',
    description: 'Audio handed to the socket; compare with audio_acked_ms.',
    value: (s) => last(s.chunks)?.audioEndMs ?? 0,
  },
  {
    name: 'audio_acked_ms', unit: 'ms', scope: 'session',
    from: "audio the server acknowledged consuming (its last progress event)", to: '',
    description: 'Only for servers that acknowledge consumption; below audio_sent_ms means audio was not taken in.',
    value: (s) => {
      const acks = s.events.filter((e) => e.kind === 'progress');
      return acks.length > 0 ? maxOf(acks.map((e) => e.audioEndMs ?? 0)) : undefined;
    },
  },
  {
    name: 'session_ms', unit: 'ms', scope: 'session',
    from: 'connect start', to: 'close',
    description: 'Connection lifetime, as a deployment dashboard sees it.',
    value: (s) => (s.close ? s.close.t - s.connectStartMs : undefined),
  },
  transportCounter('bytes_sent', 'bytes', 'WebSocket payload bytes sent', 'Payload bytes of every frame the client sent.', (s) => s.bytesSent),
  transportCounter('bytes_received', 'bytes', 'WebSocket payload bytes received', 'Payload bytes of every frame the server sent.', (s) => s.bytesReceived),
  transportCounter('frames_sent', 'count', 'frames sent', 'Frames the client sent.', (s) => s.framesSent),
  transportCounter('frames_received', 'count', 'frames received', 'Frames the server sent.', (s) => s.framesReceived),
];

export function metricByName(name: string): MetricDefinition | undefined {
  return METRICS.find((m) => m.name === name);
}

/** The catalog as plain data, for reports and `voxbench metrics`. */
export function describeMetrics(): Array<MetricInfo & { scope: MetricDefinition['scope'] }> {
  return METRICS.map(({ name, unit, scope, from, to, description }) => ({ name, unit, scope, from, to, description }));
}
