import { parseSlo, type Slo } from '../../metrics/slo.js';
import { hasTag, type MetricDescription } from '../../metrics/catalog.js';
import { definitionIn, metricsOf } from '../picks.js';
import type { Report, ReportSession } from '../schema.js';
import { eachMetricValue } from '../../metrics/stored-metrics.js';
import { round } from './downsample.js';
import { isQualityRatio } from './format.js';

/**
 * Metric look-ups for the page: definitions as tooltips, which figures to chart (the
 * report's task's, picked by tag: its `headline` figures first, and every metric an SLO
 * names), and each session's stored values. Nothing here computes a figure; figures
 * come from the report's summaries and from the per-session values it stores.
 */

/** The tooltip for a metric: its unit, start and end events, and description. */
export function metricTitle(report: Report, name: string): string {
  const d = definitionIn(report, name);
  if (!d) return name;
  return `${d.name} [${d.unit}]: ${d.to ? `from ${d.from} to ${d.to}` : d.from}. ${d.description}`;
}

/** Metrics named by the run's SLOs (and so by its capacity search), in the order given. */
export function sloMetrics(report: Report): string[] {
  return [...new Set(sloList(report).flatMap((slo) => ('metric' in slo.aggregate ? [slo.aggregate.metric] : [])))];
}

/** Whether any level has a distribution of the metric. */
function measured(report: Report, name: string): boolean {
  return report.benchmarks.some((b) => b.summary.metrics[name]);
}

/** Whether some level has a value of the metric: a distribution, or a corpus figure. */
export function hasFigure(report: Report, name: string): boolean {
  return measured(report, name) || report.benchmarks.some((b) => typeof b.summary.corpus[name] === 'number');
}

/**
 * Metrics drawn as distributions (their values are stored per input, response or session):
 * every metric an SLO names, then the task's headline latencies, then its other latencies.
 */
export function distributionMetrics(report: Report): MetricDescription[] {
  const own = metricsOf(report).filter((d) => d.scope !== 'corpus' && d.scope !== 'input_samples');
  const named = sloMetrics(report).flatMap((name) => own.filter((d) => d.name === name));
  const latencies = own.filter((d) => d.unit === 'ms' && d.tags.includes('latency'));
  const headline = latencies.filter((d) => hasTag(d, 'headline', report.config.task));
  return unique([...named, ...headline, ...latencies]).filter((d) => measured(report, d.name));
}

/**
 * Metrics drawn against load (from each level's percentiles, so pooled samples too): every
 * metric an SLO names, always, then the task's headline figures, latencies first, up to `count` in all.
 */
export function curveMetrics(report: Report, count: number): MetricDescription[] {
  const own = metricsOf(report).filter((d) => d.scope !== 'corpus');
  const named = sloMetrics(report).flatMap((name) => own.filter((d) => d.name === name));
  const headline = own.filter((d) => hasTag(d, 'headline', report.config.task) && !isQualityRatio(d));
  const byLatency = [...headline.filter((d) => d.tags.includes('latency')), ...headline];
  const rest = unique(byLatency).filter((d) => !named.includes(d) && measured(report, d.name));
  return [...named.filter((d) => measured(report, d.name)), ...rest.slice(0, Math.max(0, count - named.length))];
}

function unique(metrics: readonly MetricDescription[]): MetricDescription[] {
  return [...new Set(metrics)];
}

/** A chart axis in the metric's catalog unit, quality ratios as percentages; `value` scales and rounds a figure for it. */
export function metricAxis(d: MetricDescription): { label: string; unit: string; value: (v: number) => number } {
  if (isQualityRatio(d)) return { label: d.name, unit: '%', value: (v) => round(v * 100, 2) };
  return { label: d.name, unit: d.unit === 'count' ? '' : d.unit, value: (v) => round(v, d.unit === 'ms' ? 1 : 4) };
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

/**
 * Stored values of the named metrics over sessions, by name: one per input for input
 * metrics, one per response for response metrics, one per session otherwise. One pass
 * for all of them, not one per metric: a level can hold 100,000 sessions.
 */
export function storedValues(sessions: readonly ReportSession[], names: ReadonlySet<string>): Map<string, number[]> {
  const byName = new Map<string, number[]>([...names].map((name) => [name, []]));
  const push = (name: string, value: number | undefined): void => {
    if (value !== undefined) byName.get(name)?.push(value);
  };
  // A session's own value of a metric stands for its inputs' and responses' (its row comes first).
  const own: string[] = [];
  for (const { metrics } of sessions) {
    own.length = 0;
    eachMetricValue(metrics, (row, name, value) => {
      if (row === 'session') own.push(name);
      else if (own.includes(name)) return;
      push(name, value);
    });
  }
  return byName;
}
