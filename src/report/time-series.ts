import { percentile } from '../metrics/stats.js';
import type { Benchmark, ReportSession } from './schema.js';
import { measuredCompleted } from './picks.js';

/** Buckets of one second, fewer and longer past this many so that a run of hours stays a readable chart. */
const MAX_BUCKETS = 600;

/**
 * One level over time, bucket by bucket from its start: the headline latency's p50 and
 * p95 among the values measured in the bucket of measured, completed sessions (those
 * every other latency figure counts: no warm-up, cool-down or failed session), the sessions open (their mean number over
 * the bucket: connect to close), and the sessions that failed (by when they ended).
 * Read from the stored figures and timelines, so an old report shows it too.
 */
export interface LevelOverTime {
  bucketMs: number;
  /** Each bucket's middle, s from the level's start (the last bucket ends with the level). */
  seconds: number[];
  latency: { metric: string; p50: Array<number | null>; p95: Array<number | null> } | null;
  open: number[];
  failures: number[];
}

/** A level's bucket: one second, or whole seconds enough to keep its buckets to MAX_BUCKETS. */
export function bucketMsOf(benchmark: Pick<Benchmark, 'startMs' | 'endMs'>): number {
  return Math.max(1000, Math.ceil((benchmark.endMs - benchmark.startMs) / MAX_BUCKETS / 1000) * 1000);
}

export function levelOverTime(benchmark: Benchmark, latencyMetric: string | undefined): LevelOverTime {
  const spanMs = Math.max(0, benchmark.endMs - benchmark.startMs);
  const bucketMs = bucketMsOf(benchmark);
  const count = Math.max(1, Math.ceil(spanMs / bucketMs));
  const bucketOf = (t: number): number => Math.min(count - 1, Math.max(0, Math.floor((t - benchmark.startMs) / bucketMs)));
  const open = new Array<number>(count).fill(0);
  const failures = new Array<number>(count).fill(0);
  const values = Array.from({ length: count }, () => [] as number[]);
  const widthMs = (b: number): number => Math.max(1e-9, Math.min(bucketMs, spanMs - b * bucketMs));
  for (const session of benchmark.sessions) {
    const { startMs, endMs } = session.figures;
    // Each bucket gets the share of itself the session was open for.
    for (let b = bucketOf(startMs); b <= bucketOf(endMs); b++) {
      const from = benchmark.startMs + b * bucketMs;
      open[b]! += Math.max(0, Math.min(endMs, from + bucketMs) - Math.max(startMs, from)) / widthMs(b);
    }
    if (session.outcome.status === 'failed') failures[bucketOf(endMs)]!++;
  }
  if (latencyMetric !== undefined)
    for (const session of measuredCompleted(benchmark.sessions)) eachValueOf(session, latencyMetric, (t, value) => values[bucketOf(t)]!.push(value));
  const sorted = values.map((v) => Float64Array.from(v).sort());
  const quantile = (p: number): Array<number | null> => sorted.map((v) => (v.length === 0 ? null : percentile(v, p)));
  return {
    bucketMs,
    seconds: open.map((_, b) => (b * bucketMs + widthMs(b) / 2) / 1000),
    latency: latencyMetric === undefined ? null : { metric: latencyMetric, p50: quantile(50), p95: quantile(95) },
    open,
    failures,
  };
}

/** A session's values of `metric`, each with when it was measured: an input's once its last frame was sent, the rest at the session's end. */
function eachValueOf(session: ReportSession, metric: string, visit: (t: number, value: number) => void): void {
  const { metrics, facts } = session;
  const { endMs } = session.figures;
  metrics.inputs.forEach((row, i) => {
    const value = row[metric];
    if (value !== undefined) visit(facts.inputs[i]?.lastSentMs ?? endMs, value);
  });
  for (const row of metrics.responses) if (row[metric] !== undefined) visit(endMs, row[metric]);
  if (metrics.session[metric] !== undefined) visit(endMs, metrics.session[metric]);
}
