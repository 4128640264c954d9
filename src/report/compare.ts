import { hasTag, metricByName, type MetricDescription } from '../metrics/catalog.js';
import { poolValues } from '../metrics/compute.js';
import { percentile, summarize } from '../metrics/stats.js';
import { seededRandom } from '../util/random.js';
import { corpusIntervals, medianDelta, RESAMPLES, type Interval } from './compare-bootstrap.js';
import { mismatches, sideOf } from './compare-side.js';
import type { Comparison, CorpusComparison, MetricComparison, Verdict } from './compare-types.js';
import { cdfPoints, round } from './html/downsample.js';
import { measuredCompleted } from './picks.js';
import { benchmarksByLevel } from './levels.js';
import type { Statistic } from './statistics.js';
import { metricsOf, spanText } from './picks.js';
import { ReportError } from './recompute.js';
import type { Benchmark, Report, ReportSession } from './schema.js';

export { renderComparison } from './compare-console.js';
export type { Comparison, CorpusComparison, MetricComparison, Verdict } from './compare-types.js';

/** Steps per CDF curve: smooth at chart width, small in compare.json. */
const CDF_POINTS = 160;

/**
 * Compares one level of two reports (the one named `level`, else the lightest both ran) over their
 * measured completed sessions: every metric of the reports' catalog that both have,
 * each side's counts and throughput, corpus figures with their intervals, and what
 * makes the runs differ besides the servers. Intervals come from a percentile
 * bootstrap over whole sessions with a fixed seed, so they are reproducible; when one
 * excludes 0 the difference is unlikely to be noise. `statistics` (`--percentiles`):
 * each metric's statistics to show side by side, besides the p50 and p95 always kept.
 */
export function compareReports(a: Report, b: Report, level?: string, statistics?: readonly Statistic[]): Comparison {
  const { label, note } = level === undefined ? defaultLevel(a, b) : { label: level, note: undefined };
  const pick = (report: Report): Benchmark => {
    const found = label === undefined ? report.benchmarks[0] : report.benchmarks.find((x) => x.label === label);
    if (!found)
      throw new ReportError(
        level === undefined
          ? 'a report has no benchmark to compare'
          : `--level ${level}: not a level of both reports (levels: ${report.benchmarks.map((b) => b.label).join(', ')})`,
      );
    return found;
  };
  const [benchA, benchB] = [pick(a), pick(b)];
  const [sessionsA, sessionsB] = [measuredCompleted(benchA.sessions), measuredCompleted(benchB.sessions)];
  const inB = new Set(metricsOf(b).map((d) => d.name));
  const shared = metricsOf(a).filter((d) => inB.has(d.name));
  const random = seededRandom(1);
  // Each session's values of every metric, computed once.
  const valuesOf = (sessions: readonly ReportSession[]) => sessions.map((s) => poolValues([s.figures.values], s.figures.task));
  const [valuesA, valuesB] = [valuesOf(sessionsA), valuesOf(sessionsB)];
  const metrics = shared.flatMap((d): MetricComparison[] => {
    if (d.scope === 'corpus') return [];
    const perSessionA = valuesA.map((s) => s[d.name] ?? []);
    const perSessionB = valuesB.map((s) => s[d.name] ?? []);
    const [x, y] = [sorted(perSessionA.flat()), sorted(perSessionB.flat())];
    if (x.length === 0 || y.length === 0) return [];
    const delta = medianDelta(perSessionA, perSessionB, random);
    const headline = hasTag(d, 'headline', a.config.task);
    return [
      {
        metric: d.name,
        unit: d.unit,
        better: d.better,
        headline,
        description: `${spanText(d)}. ${d.description}`,
        countA: x.length,
        countB: y.length,
        p50A: percentile(x, 50),
        p50B: percentile(y, 50),
        p95A: percentile(x, 95),
        p95B: percentile(y, 95),
        ...(statistics ? { statistics: statistics.map((name) => ({ name, a: statisticOf(x, name), b: statisticOf(y, name) })) } : {}),
        deltaP50: delta.value,
        ci95: delta.ci95,
        verdict: verdictOf(d, delta.ci95),
        ...(headline ? { cdf: { a: cdf(x, d), b: cdf(y, d) } } : {}),
      },
    ];
  });
  const corpus = shared.flatMap((d) => corpusComparison(d, [benchA, sessionsA], [benchB, sessionsB], random));
  const [sideA, sideB] = [sideOf(a, benchA), sideOf(b, benchB)];
  return { a: sideA, b: sideB, warnings: [...(note ? [note] : []), ...mismatches(sideA, sideB)], resamples: RESAMPLES, metrics, corpus };
}

/**
 * The level compared when none is named: the lightest load both runs ran (a sweep or a
 * capacity search of each), saying which it is and how to choose another where either
 * ran several; else (no level in common) the first of each, which `mismatches` names.
 */
function defaultLevel(a: Report, b: Report): { label: string | undefined; note: string | undefined } {
  const inB = new Set(b.benchmarks.map((x) => x.label));
  const shared = benchmarksByLevel(a)
    .map((x) => x.label)
    .filter((label) => inB.has(label));
  const label = shared[0];
  if (label === undefined || (a.benchmarks.length === 1 && b.benchmarks.length === 1)) return { label, note: undefined };
  const note =
    shared.length > 1
      ? `A and B share ${shared.length} levels (${shared.join(', ')}); this compares ${label}, the lightest: compare another with --level, e.g. --level ${shared[shared.length - 1]}`
      : `A ran ${a.benchmarks.length} level${a.benchmarks.length === 1 ? '' : 's'} and B ${b.benchmarks.length}; they share only ${label}, compared here`;
  return { label, note };
}

/** B against A on a figure whose difference B − A has the interval `[lo, hi]` (see `Verdict`). */
export function verdictOf(metric: Pick<MetricDescription, 'better' | 'tags'>, [lo, hi]: Interval): Verdict {
  if (metric.tags.includes('workload')) return 'workload';
  // Every resample gave the same figure on both sides (0 -> 0): no change, not a doubt.
  if (lo === 0 && hi === 0) return 'same';
  // Written so that an interval without bounds (no resample had a value) is unclear.
  const sign = lo > 0 ? 1 : hi < 0 ? -1 : 0;
  if (sign === 0) return 'unclear';
  if (metric.better === 'neither') return 'different';
  return sign < 0 === (metric.better === 'lower') ? 'better' : 'worse';
}

/**
 * A corpus metric: each side's value as its report computed it, with intervals from
 * reducing resampled sessions (or turns, where the catalog says so: corpus WER and
 * CER) with the catalog's own reduction.
 */
function corpusComparison(
  d: MetricDescription,
  [benchA, sessionsA]: [Benchmark, ReportSession[]],
  [benchB, sessionsB]: [Benchmark, ReportSession[]],
  random: () => number,
): CorpusComparison[] {
  const metric = metricByName(d.name);
  if (metric?.scope !== 'corpus') return [];
  const [valueA, valueB] = [benchA.summary.corpus[d.name] ?? null, benchB.summary.corpus[d.name] ?? null];
  if (valueA === null && valueB === null) return [];
  // The units the catalog says to resample: each session's part, or each input's entry of it as a part of one input.
  const units = (sessions: readonly ReportSession[]): unknown[] => {
    const parts = sessions.map((s) => s.figures.corpus[d.name]);
    return metric.resample === 'inputs' ? parts.flatMap((part) => (part as unknown[]).map((input) => [input])) : parts;
  };
  const ci = corpusIntervals(units(sessionsA), units(sessionsB), (parts) => metric.reduce(parts), random);
  return [
    {
      metric: d.name,
      unit: d.unit,
      better: d.better,
      a: valueA === null ? null : { value: valueA, ci95: ci.a },
      b: valueB === null ? null : { value: valueB, ci95: ci.b },
      delta: valueA === null || valueB === null ? null : { value: valueB - valueA, ci95: ci.delta, verdict: verdictOf(d, ci.delta) },
    },
  ];
}

function cdf(values: Float64Array, d: MetricDescription): { x: number[]; y: number[] } {
  const { x, y } = cdfPoints(values, CDF_POINTS);
  // Milliseconds to 0.1 ms; ratios and counts keep the digits their differences need.
  return { x: x.map((v) => round(v, d.unit === 'ms' ? 1 : 4)), y: y.map((v) => round(v, 2)) };
}

/** A statistic as `--percentiles` names it, of sorted values. */
function statisticOf(values: Float64Array, name: Statistic): number {
  if (name.startsWith('p')) return percentile(values, Number(name.slice(1)));
  return summarize(Array.from(values))![name as 'mean' | 'std' | 'min' | 'max'];
}

function sorted(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}
