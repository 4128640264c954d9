import type { RunConfig, Telemetry, TelemetrySeries } from './schema.js';

/**
 * The settings one level's figures are computed with: with a scraped replica gauge
 * (`replicasSeries`) and a price, the replicas charged are the gauge's time-weighted mean
 * over the level, rounded to thousandths; a level the gauge has no reading in is
 * charged the run's own, and its cost says so (`replicasFrom.fallback`). During the
 * run, `series` are those kept so far.
 */
export function levelSettings(
  config: RunConfig,
  telemetry: Pick<Telemetry, 'series' | 'replicasSeries'> | undefined,
  level: { startMs: number; endMs: number },
): RunConfig {
  const name = telemetry?.replicasSeries;
  if (name === undefined || !config.pricing) return config;
  const replicas = timeWeightedMean(telemetry!.series, name, level.startMs, level.endMs);
  const pricing =
    replicas === undefined
      ? { ...config.pricing, replicasFrom: { series: name, fallback: true } }
      : { ...config.pricing, replicas: Math.round(replicas * 1000) / 1000, replicasFrom: { series: name, fallback: false } };
  return { ...config, pricing };
}

/** One series over one level: its mean and maximum between the level's start and end. */
export interface SeriesOverLevel {
  series: TelemetrySeries;
  /** Over the points in the interval: the mean of what was read, each point weighing the same. */
  mean: number;
  max: number;
}

/** Each series with points inside [startMs, endMs], with its mean and maximum there. */
export function seriesOverLevel(telemetry: Telemetry, startMs: number, endMs: number): SeriesOverLevel[] {
  const found: SeriesOverLevel[] = [];
  for (const series of telemetry.series) {
    let sum = 0;
    let count = 0;
    let max = -Infinity;
    for (const [t, v] of series.points) {
      if (t < startMs || t > endMs) continue;
      sum += v;
      count++;
      if (v > max) max = v;
    }
    if (count > 0) found.push({ series, mean: sum / count, max });
  }
  return found;
}

/**
 * The time-weighted mean over [startMs, endMs] of every series named `name`, added
 * (a replica gauge per deployment adds up to the replicas serving). A series counts only
 * while it is scraped: each reading holds until the next, or until a scrape found the
 * series absent (`absent`), and counts nothing from there to its next reading; the first
 * reading stands for the time before it only when nothing says the series was absent
 * then. So a series that goes (a rollout's old pod) stops counting, and one that comes
 * starts counting when it came: label churn is never counted twice. Undefined when no
 * series of that name has a point.
 */
export function timeWeightedMean(series: readonly TelemetrySeries[], name: string, startMs: number, endMs: number): number | undefined {
  const named = series.filter((s) => s.name === name && s.points.length > 0);
  if (named.length === 0 || !(endMs > startMs)) return undefined;
  let total = 0;
  for (const { points, absent = [] } of named) {
    // The series as steps in time order: a reading's value, or null from a scrape that found it absent.
    const steps: Array<[number, number | null]> = [...points, ...absent.map((t): [number, null] => [t, null])].sort((a, b) => a[0] - b[0]);
    let area = 0;
    for (let i = 0; i < steps.length; i++) {
      const [t, value] = steps[i]!;
      if (value === null) continue;
      const from = i === 0 ? startMs : Math.max(startMs, t);
      const to = i + 1 < steps.length ? Math.min(endMs, steps[i + 1]![0]) : endMs;
      if (to > from) area += value * (to - from);
    }
    total += area / (endMs - startMs);
  }
  return total;
}

/**
 * A series as a person reads it: its name, and the labels that tell it from the other
 * series of that name (a histogram's `quantile` always), with its target's number when
 * several targets have series of that name.
 */
export function seriesLabel(series: TelemetrySeries, telemetry: Telemetry): string {
  const same = telemetry.series.filter((s) => s.name === series.name);
  const telling = Object.entries(series.labels).filter(([k, v]) => k === 'quantile' || same.some((s) => s.labels[k] !== v));
  const targets = new Set(same.map((s) => s.target));
  const labels = telling.map(([k, v]) => `${k}="${v}"`);
  if (targets.size > 1) labels.unshift(`target=${series.target + 1}`);
  return labels.length > 0 ? `${series.name}{${labels.join(',')}}` : series.name;
}

/** One line per scrape target that failed or dropped series: the warnings a run's outputs carry. */
export function telemetryWarnings(telemetry: Telemetry): string[] {
  return telemetry.targets.flatMap((t) => [
    ...(t.failures > 0 ? [`scrape ${t.url}: ${t.failures} of ${t.scrapes} scrapes failed${t.lastError !== undefined ? ` (last: ${t.lastError})` : ''}`] : []),
    ...(t.droppedSeries ? [`scrape ${t.url}: ${t.droppedSeries} series left out, past the bound on series kept`] : []),
  ]);
}

/** What a series' values are counted per: `per s` for a counter's rate, nothing for a gauge or a quantile. */
export function seriesPer(series: Pick<TelemetrySeries, 'kind'>): string {
  return series.kind === 'rate' ? 'per s' : '';
}

/** A series as every output names its figures: its label, and `per s` for a counter's rate. */
export function seriesTitle(series: TelemetrySeries, telemetry: Telemetry): string {
  return [seriesLabel(series, telemetry), seriesPer(series)].filter(Boolean).join(' ');
}

/** Series shown per level on the console and in summary.md; the rest are in report.json and server-metrics.csv. */
export const SERVER_SERIES_SHOWN = 6;
