import type { DelaySummary } from '../runtime/delay.js';
import type { BenchmarkSummary } from './compute.js';
import { metricByName } from './catalog.js';
import type { Slo } from './slo.js';

/** The client's own lateness, and whether it is small against what it measured. */
export interface ClientHealth {
  /** How late the event loop ran timers during the benchmark, beyond their due time. */
  eventLoopDelay: DelaySummary;
  /** How long a received frame waited to be stamped, by the loopback probe; absent in reports from before it. */
  receiveDelay?: DelaySummary;
  /** Open loop: sessions that found the open-session cap reached at their planned start. */
  capHits: number;
  /** True when the client's lag is large against the latencies it measured. */
  bottleneck: boolean;
  verdict: string;
}

/** Client lag counts as small below this share of the reference latency, or below the floor. */
const SHARE = 0.1;
const FLOOR_MS = 10;

/**
 * Judges the client: its lag (the largest of send lag p99, event-loop delay p99 and
 * receive-stamp delay p99) against 10% of the median latency it measured (voice to
 * voice, else TTFT, else TTFA, else turn time), with a 10 ms floor.
 */
export function judgeClient(summary: BenchmarkSummary, eventLoopDelay: DelaySummary, capHits: number, receiveDelay?: DelaySummary): ClientHealth {
  const sendLag = summary.metrics.send_lag_ms?.p99 ?? 0;
  const lag = clientLagMs(summary, { eventLoopDelay, ...(receiveDelay ? { receiveDelay } : {}) });
  // Speech to speech has voice-to-voice latency (and no transcription TTFT worth the name).
  const { voice_to_voice_ms: v2v, ttft_ms: ttft, ttfa_ms: ttfa, turn_ms: turn } = summary.metrics;
  const reference = v2v
    ? { name: 'voice to voice', ms: v2v.p50 }
    : ttft
      ? { name: 'TTFT', ms: ttft.p50 }
      : ttfa
        ? { name: 'TTFA', ms: ttfa.p50 }
        : turn
          ? { name: 'turn time', ms: turn.p50 }
          : undefined;
  const limit = Math.max(FLOOR_MS, reference ? reference.ms * SHARE : 0);
  const figures =
    `send lag p99 ${sendLag.toFixed(1)} ms, event-loop delay p99 ${eventLoopDelay.p99Ms.toFixed(1)} ms` +
    (receiveDelay ? `, receive-stamp delay p99 ${receiveDelay.p99Ms.toFixed(1)} ms` : '');
  const against = reference ? `${reference.name} p50 ${reference.ms.toFixed(0)} ms` : 'no latency measured';
  const bottleneck = lag > limit;
  return {
    eventLoopDelay,
    ...(receiveDelay ? { receiveDelay } : {}),
    capHits,
    bottleneck,
    verdict: bottleneck
      ? `the client may be the bottleneck: ${figures} against ${against}; latencies may be overstated. Spread sessions with --workers or run fewer at once.`
      : `the client kept up: ${figures}, small against ${against}.`,
  };
}

/** The client's lag over a benchmark: the largest of its send lag p99, event-loop delay p99 and receive-stamp delay p99, ms. */
export function clientLagMs(summary: Pick<BenchmarkSummary, 'metrics'>, health: Pick<ClientHealth, 'eventLoopDelay' | 'receiveDelay'>): number {
  return Math.max(summary.metrics.send_lag_ms?.p99 ?? 0, health.eventLoopDelay.p99Ms, health.receiveDelay?.p99Ms ?? 0);
}

/**
 * Whether the client's own lag could account for an SLO's miss: a latency bound (ms,
 * lower is better) that the figure would meet were it `lagMs` shorter. Any other SLO
 * (an error rate, a ratio, a bound from below) the client's lateness does not explain.
 */
export function lagExplains(slo: Slo, value: number | null, lagMs: number): boolean {
  const { aggregate, op, threshold } = slo;
  if (value === null || !('metric' in aggregate) || metricByName(aggregate.metric)?.unit !== 'ms') return false;
  return op === '<' ? value - lagMs < threshold : op === '<=' ? value - lagMs <= threshold : false;
}
