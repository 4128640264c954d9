import type { EventLoopDelay } from '../load/execute.js';
import type { BenchmarkSummary } from './compute.js';

/** The client's own lateness, and whether it is small against what it measured. */
export interface ClientHealth {
  eventLoopDelay: EventLoopDelay;
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
 * Judges the client: its lag (the larger of send lag p99 and event-loop delay p99)
 * against 10% of the median latency it measured (TTFT, else TTFA, else turn time), with a 10 ms floor.
 */
export function judgeClient(summary: BenchmarkSummary, eventLoopDelay: EventLoopDelay, capHits: number): ClientHealth {
  const sendLag = summary.metrics.send_lag_ms?.p99 ?? 0;
  const lag = Math.max(sendLag, eventLoopDelay.p99Ms);
  const reference = summary.metrics.ttft_ms ? { name: 'TTFT', ms: summary.metrics.ttft_ms.p50 } : summary.metrics.ttfa_ms ? { name: 'TTFA', ms: summary.metrics.ttfa_ms.p50 } : summary.metrics.turn_ms ? { name: 'turn time', ms: summary.metrics.turn_ms.p50 } : undefined;
  const limit = Math.max(FLOOR_MS, reference ? reference.ms * SHARE : 0);
  const figures = `send lag p99 ${sendLag.toFixed(1)} ms, event-loop delay p99 ${eventLoopDelay.p99Ms.toFixed(1)} ms`;
  const against = reference ? `${reference.name} p50 ${reference.ms.toFixed(0)} ms` : 'no latency measured';
  const bottleneck = lag > limit;
  return {
    eventLoopDelay,
    capHits,
    bottleneck,
    verdict: bottleneck
      ? `the client may be the bottleneck: ${figures} against ${against}; latencies may be overstated. Spread sessions with --workers or run fewer at once.`
      : `the client kept up: ${figures}, small against ${against}.`,
  };
}
