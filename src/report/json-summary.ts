import { poolValues, type SessionFigures } from '../metrics/compute.js';
import type { SloResult } from '../metrics/slo.js';
import type { Cost } from '../metrics/cost.js';
import { percentile, sortedFinite, type Distribution } from '../metrics/stats.js';
import { UsageError } from '../util/errors.js';
import { DEFAULT_STATISTICS, STORED_STATISTICS, type Statistic } from './statistics.js';
import { headlineLatencies, measuredCompleted, metricsOf } from './picks.js';
import { coldWarmOf } from './cold-warm.js';
import type { Start } from '../metrics/cold-start.js';
import type { Benchmark, ReplayConfig, Report, TelemetrySeries } from './schema.js';
import { seriesLabel, seriesOverLevel, seriesTitle, telemetryWarnings } from './telemetry.js';

/**
 * Each statistic of each metric of a benchmark: the stored ones from its summary, the
 * others (e.g. p99.9) computed from its measured completed sessions' values (taken from their timelines) with the
 * report's percentile method. A statistic that needs timelines the report lacks is refused.
 * With `start`, of the measured sessions that started so (cold or warm) only.
 */
export function statisticsOf(
  benchmark: Benchmark,
  names: readonly string[],
  stats: readonly Statistic[],
  start?: Start,
): Record<string, Record<string, number> | null> {
  const group = start === undefined ? undefined : benchmark.summary.coldWarm?.[start];
  const distributions = start === undefined ? benchmark.summary.metrics : (group?.metrics ?? {});
  let pooled: Record<string, number[]> | undefined;
  const computed = (name: string): Float64Array => {
    if (!pooled) {
      const figures = measuredCompleted(benchmark.sessions)
        .filter((s) => start === undefined || s.start === start)
        .map((s) => s.figures as SessionFigures | undefined);
      if (figures.some((f) => f === undefined) || (figures.length === 0 && (group ?? benchmark.summary.sessions).completed > 0))
        throw new UsageError(`--percentiles: this report does not hold the sessions' timelines, so only ${[...STORED_STATISTICS].join(', ')} can be shown`);
      pooled = poolValues(
        figures.map((f) => f!.values),
        figures[0]?.task,
      );
    }
    return sortedFinite(pooled[name] ?? []);
  };
  const result: Record<string, Record<string, number> | null> = {};
  for (const name of names) {
    const d: Distribution | null | undefined = distributions[name];
    if (!d) continue;
    const values: Record<string, number> = { count: d.count };
    for (const stat of stats) {
      if (STORED_STATISTICS.has(stat)) values[stat] = d[stat as keyof Distribution];
      else {
        const sorted = computed(name);
        values[stat] = sorted.length === 0 ? NaN : percentile(sorted, Number(stat.slice(1)));
      }
    }
    result[name] = values;
  }
  return result;
}

/** What `run --json` prints: the run in brief; report.json holds the full document. */
export interface JsonSummary {
  schema: 'voxbench.summary';
  voxbenchVersion: string;
  task: string;
  protocol: string;
  model: string;
  /** As the report records it (credentials redacted). */
  target: string;
  stoppedBy?: string;
  statistics: Statistic[];
  levels: Array<{
    label: string;
    sessions: Benchmark['summary']['sessions'];
    errorRate: number | null;
    /** Failed sessions by class and stage, with the first message of each (as the console lists them). */
    failures: Benchmark['summary']['failures'];
    throughput: Benchmark['summary']['throughput'];
    /** Each headline metric's statistics, count first. */
    metrics: Record<string, Record<string, number> | null>;
    /** Headline corpus figures (e.g. corpus WER). */
    corpus: Record<string, number | null>;
    slos: SloResult[];
    stoppedBy?: string;
    /** Measured sessions that started cold apart from warm ones (the same statistics of the same metrics), when any started cold. */
    coldWarm?: { gapMs: number } & Record<
      Start,
      { sessions: number; completed: number; failed: number; metrics: Record<string, Record<string, number> | null> }
    >;
    /** With a price: the level's cost, and where its replicas came from (`replicasFrom`, when a gauge was named; `fallback` when it was not scraped). */
    cost?: Cost;
    /**
     * Scraped server series (`--scrape`) over the level: mean and max; `series` its label,
     * `title` as the console names it (`per s` after a counter's rate), `kind` a gauge, a
     * counter's `rate` per second or a histogram's `quantile`.
     */
    server?: Array<{ series: string; title: string; kind: TelemetrySeries['kind']; mean: number; max: number }>;
  }>;
  /** Recorded traffic replayed: how, each window's recorded figures, and every recorded session not played, counted and named (the sessions' plays are in report.json). */
  replay?: Omit<ReplayConfig, 'plays'>;
  /** Scrape targets that failed or dropped series, one line each. */
  scrapeWarnings?: string[];
  capacity?: Report['capacity'];
  /** Where the full report was written, when it was. */
  report?: string;
  /** Where its page (report.html) was written, when it was. */
  page?: string;
}

/** The compact summary of a report: levels, headline statistics, SLO verdicts, capacity; no timelines. */
export function jsonSummary(
  report: Report,
  stats: readonly Statistic[] = DEFAULT_STATISTICS,
  paths: { report?: string | undefined; page?: string | undefined } = {},
): JsonSummary {
  const headline = headlineLatencies(report).map((d) => d.name);
  const others = metricsOf(report, 'headline')
    .filter((d) => d.scope !== 'corpus' && !headline.includes(d.name))
    .map((d) => d.name);
  const corpus = metricsOf(report, 'headline').filter((d) => d.scope === 'corpus');
  const { config, telemetry } = report;
  return {
    schema: 'voxbench.summary',
    voxbenchVersion: report.voxbenchVersion,
    task: config.task,
    protocol: config.protocol,
    model: config.model,
    target: config.target,
    ...(report.stoppedBy ? { stoppedBy: report.stoppedBy } : {}),
    statistics: [...stats],
    levels: report.benchmarks.map((b) => ({
      label: b.label,
      sessions: b.summary.sessions,
      errorRate: b.summary.errorRate,
      failures: b.summary.failures,
      throughput: b.summary.throughput,
      metrics: statisticsOf(b, [...headline, ...others], stats),
      corpus: Object.fromEntries(corpus.flatMap((m) => (m.name in b.summary.corpus ? [[m.name, b.summary.corpus[m.name] ?? null]] : []))),
      slos: b.summary.slos,
      ...(b.stoppedBy ? { stoppedBy: b.stoppedBy } : {}),
      ...coldWarmSummary(b, [...headline, ...others], stats),
      ...(b.summary.cost ? { cost: b.summary.cost } : {}),
      ...(telemetry
        ? {
            server: seriesOverLevel(telemetry, b.startMs, b.endMs).map((o) => ({
              series: seriesLabel(o.series, telemetry),
              title: seriesTitle(o.series, telemetry),
              kind: o.series.kind,
              mean: o.mean,
              max: o.max,
            })),
          }
        : {}),
    })),
    ...(config.replay ? { replay: withoutPlays(config.replay) } : {}),
    ...(telemetry && telemetryWarnings(telemetry).length > 0 ? { scrapeWarnings: telemetryWarnings(telemetry) } : {}),
    ...(report.capacity ? { capacity: report.capacity } : {}),
    ...(paths.report !== undefined ? { report: paths.report } : {}),
    ...(paths.page !== undefined ? { page: paths.page } : {}),
  };
}

const withoutPlays = ({ plays: _, ...replay }: ReplayConfig): Omit<ReplayConfig, 'plays'> => replay;

/** A level's cold and warm sessions apart, as `levels[].coldWarm`; nothing when none started cold. */
function coldWarmSummary(b: Benchmark, names: readonly string[], stats: readonly Statistic[]): Pick<JsonSummary['levels'][number], 'coldWarm'> {
  const coldWarm = coldWarmOf(b);
  if (!coldWarm) return {};
  const group = (start: Start) => {
    const { sessions, completed, failed } = coldWarm[start];
    return { sessions, completed, failed, metrics: statisticsOf(b, names, stats, start) };
  };
  return { coldWarm: { gapMs: coldWarm.gapMs, cold: group('cold'), warm: group('warm') } };
}
