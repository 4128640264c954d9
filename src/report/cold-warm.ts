import type { MetricDescription } from '../metrics/catalog.js';
import type { ColdWarm } from '../metrics/compute.js';
import { headlineLatencies } from './picks.js';
import type { Benchmark, Report } from './schema.js';

/** How cold sessions were told from warm ones, in words, for every output. */
export function coldRule(gapMs: number): string {
  return `cold: the first completed session, and the first after more than ${Number((gapMs / 1000).toPrecision(4))} s with no completed session open`;
}

/** A level's cold and warm figures, when it has measured sessions that started cold. */
export function coldWarmOf(benchmark: Benchmark): ColdWarm | undefined {
  const split = benchmark.summary.coldWarm;
  return split && split.cold.sessions > 0 ? split : undefined;
}

/** The headline latencies to show cold and warm apart: those with a figure in some level's cold or warm sessions, at most `most`. */
export function coldWarmMetrics(report: Parameters<typeof headlineLatencies>[0] & Pick<Report, 'benchmarks'>, most = 3): MetricDescription[] {
  const splits = report.benchmarks.flatMap((b) => coldWarmOf(b) ?? []);
  return headlineLatencies(report)
    .filter((d) => splits.some((s) => s.cold.metrics[d.name] || s.warm.metrics[d.name]))
    .slice(0, most);
}
