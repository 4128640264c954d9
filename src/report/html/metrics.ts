import { parseSlo, type Slo } from '../../metrics/slo.js';
import { definitionIn, headlineLatencies } from '../picks.js';
import type { Report, ReportSession } from '../schema.js';

/**
 * Metric look-ups for the page: definitions as tooltips, which latencies to chart,
 * and each session's stored values. Nothing here computes a figure; figures come
 * from the report's summaries and from the per-session values it stores.
 */

/** The tooltip for a metric: its unit, start and end events, and description. */
export function metricTitle(report: Report, name: string): string {
  const d = definitionIn(report, name);
  if (!d) return name;
  return `${d.name} [${d.unit}]: ${d.to ? `from ${d.from} to ${d.to}` : d.from}. ${d.description}`;
}

/**
 * Interval metrics in ms with one value per turn or session (the values a CDF needs
 * are stored per session), SLO metrics first, then the usual headline latencies.
 */
export function latencyMetrics(report: Report): string[] {
  const intervals = report.metricDefinitions.filter((d) => d.unit === 'ms' && d.to !== '' && d.scope !== 'input_samples').map((d) => d.name);
  const sloMetrics = sloList(report).flatMap((slo) => ('metric' in slo.aggregate ? [slo.aggregate.metric] : []));
  const order = [...new Set([...sloMetrics, ...headlineLatencies(report).map((d) => d.name), ...intervals])];
  return order.filter((name) => intervals.includes(name) && report.benchmarks.some((b) => b.summary.metrics[name]));
}

/** Definitions of the summary figures that are not catalog metrics. */
export const THROUGHPUT_TITLE = 'Audio seconds of measured completed sessions per wall-clock second, from the first measured session start to the last end.';
export const ERROR_RATE_TITLE = 'Failed over finished (completed + failed) measured sessions.';

/** An SLO as parsed, or undefined for an expression this version cannot read (a report from another version). */
export function readSlo(text: string): Slo | undefined {
  try {
    return parseSlo(text);
  } catch {
    return undefined;
  }
}

/** The run's SLOs that this version can read; the others still show their verdicts, but draw no line. */
export function sloList(report: Report): Slo[] {
  return report.config.slos.flatMap((text) => readSlo(text) ?? []);
}

/** Sessions behind a benchmark's figures: measured and completed. */
export function measuredCompleted(sessions: readonly ReportSession[]): ReportSession[] {
  return sessions.filter((s) => s.phase === 'measured' && s.outcome.status === 'completed');
}

/** Stored values of a metric over sessions: one per input for input metrics, one per response for response metrics, one per session otherwise. */
export function storedValues(sessions: readonly ReportSession[], name: string): number[] {
  // Loops, not flatMap: no array per session and turn, over up to 100,000 sessions per metric.
  const values: number[] = [];
  for (const { metrics } of sessions) {
    const own = metrics.session[name];
    if (own !== undefined) values.push(own);
    else for (const values_ of [metrics.inputs, metrics.responses]) for (const one of values_) if (one[name] !== undefined) values.push(one[name]);
  }
  return values;
}
