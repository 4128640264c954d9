import { isStaged } from '../../load/profiles.js';
import type { Benchmark, Report, Telemetry } from '../schema.js';
import { headlineLatencies } from '../picks.js';
import { bucketMsOf, levelOverTime } from '../time-series.js';
import { seriesPer } from '../telemetry.js';
import type { AxisSpec, ChartSpec, SeriesSpec } from './chart-spec.js';
import { definedPoints, evenly, round } from './downsample.js';
import { html } from './markup.js';
import { metricAxis, metricTitle } from './metrics.js';
import { COLORS, levelColors } from './palette.js';
import { chartFigure, note, type Section } from './section.js';

/** Scraped metrics charted per level (one chart per metric name), series per chart and points per series: enough to read, bounded in size. */
const TELEMETRY_CHARTS = 12;
const SERIES_PER_CHART = 8;
const POINTS_PER_SERIES = 600;

/**
 * Each level over time on one axis (s from the level's start): the headline latency per
 * bucket (p50, p95), the sessions open and failed, and every scraped server series the
 * report holds, so a latency change lines up with the load and the server's state.
 */
export function timePanelSection(report: Report): Section {
  const headline = headlineLatencies(report)[0];
  const charts: ChartSpec[][] = report.benchmarks.map((benchmark, level) => {
    const spanS = round(Math.max(benchmark.endMs - benchmark.startMs, 1) / 1000, 3);
    const x: AxisSpec = { label: 'time', unit: 's', min: 0, max: spanS };
    const over = levelOverTime(benchmark, headline?.name);
    const middle = over.seconds.map((s) => round(s, 3));
    const quantiles = (xs: readonly number[], style: 'line-points' | 'points'): SeriesSpec[] =>
      (['p50', 'p95'] as const).map((q) => ({
        label: q,
        color: COLORS[q],
        style,
        ...definedPoints(
          xs,
          over.latency![q].map((v) => (v === null ? null : metricAxis(headline!).value(v))),
        ),
      }));
    const y: AxisSpec | undefined = headline && { label: headline.name, unit: metricAxis(headline).unit, fromZero: true };
    const latency: ChartSpec[] = y && over.latency ? [{ id: `time-${level}-latency`, x, y, rules: [], series: quantiles(middle, 'line-points') }] : [];
    // Where the load ramps, each second's figures against the sessions open then: how latency grows with load.
    const byOpen: ChartSpec[] =
      y && over.latency && isStaged(benchmark.profile)
        ? [
            {
              id: `time-${level}-by-open`,
              x: { label: 'open sessions', unit: 'sessions', fromZero: true },
              y,
              rules: [],
              series: quantiles(
                over.open.map((n) => round(n, 2)),
                'points',
              ),
            },
          ]
        : [];
    const sessions: ChartSpec = {
      id: `time-${level}-sessions`,
      x,
      y: { label: 'sessions', unit: '', fromZero: true },
      rules: [],
      series: [
        { label: 'open', color: COLORS.throughput, style: 'line', x: middle, y: over.open.map((v) => round(v, 2)) },
        {
          label: 'failed',
          color: COLORS.error,
          style: 'points',
          ...definedPoints(
            middle,
            over.failures.map((n) => (n === 0 ? null : n)),
          ),
        },
      ],
    };
    // A series with no point in the level (no failure, a scraped metric absent then) is left out, and so is a chart left with none.
    return [...latency, sessions, ...byOpen, ...telemetryCharts(report.telemetry, benchmark, level, x)]
      .map((c) => ({ ...c, series: c.series.filter((s) => s.x.length > 0) }))
      .filter((c) => c.series.length > 0);
  });
  const section = { id: 'time', title: 'Over time' };
  if (report.benchmarks.length === 0) return { ...section, charts: [], body: note('No level ran.') };
  const colors = levelColors(report.benchmarks.length);
  const bucket = bucketMsOf(report.benchmarks[0]!) / 1000;
  return {
    ...section,
    charts: charts.flat(),
    body: html`${note(
      `Each level from its start, in buckets of ${bucket} s${report.benchmarks.length > 1 ? ' (longer levels may use longer ones)' : ''}: ` +
        `${headline ? `${headline.name} p50 and p95 of the values measured in the bucket (measured, completed sessions, as every latency figure), ` : ''}sessions open (their mean number, connect to close) and sessions failed (when they ended)` +
        `${report.telemetry ? ', then the server metrics scraped (counters as rates per second, histograms as quantiles per interval)' : ''}.`,
    )}
${report.benchmarks.map(
  (b, level) => html`<h3 class="subhead"><span class="swatch" style="background:${colors[level]}"></span> ${b.label}</h3>
<div class="grid">${charts[level]!.map((c) => chartFigure(c, chartHeading(c), headline?.name === c.y.label ? metricTitle(report, c.y.label) : c.y.label))}</div>`,
)}`,
  };
}

function chartHeading(spec: ChartSpec): string {
  return `${spec.y.label} ${spec.x.label === 'time' ? 'over time' : `against ${spec.x.label}`}`;
}

/** The scraped series within the level's span, one chart per metric name (a series per target and label set), times from the level's start. */
function telemetryCharts(telemetry: Telemetry | undefined, benchmark: Benchmark, level: number, x: AxisSpec): ChartSpec[] {
  if (!telemetry) return [];
  const byName = new Map<string, Telemetry['series']>();
  for (const series of telemetry.series) byName.set(series.name, [...(byName.get(series.name) ?? []), series]);
  const several = telemetry.targets.length > 1;
  return [...byName].slice(0, TELEMETRY_CHARTS).map(([name, all], chart) => {
    const colors = levelColors(Math.min(all.length, SERIES_PER_CHART));
    const series: SeriesSpec[] = all.slice(0, SERIES_PER_CHART).map((s, i) => {
      const inLevel = evenly(
        s.points.filter(([t]) => t >= benchmark.startMs && t <= benchmark.endMs),
        POINTS_PER_SERIES,
      );
      const labels = Object.entries(s.labels).map(([k, v]) => `${k}=${v}`);
      const target = several ? [telemetry.targets[s.target]?.url ?? `target ${s.target}`] : [];
      return {
        label: [...target, ...labels].join(' ') || s.kind,
        color: colors[i]!,
        style: 'line' as const,
        x: inLevel.map(([t]) => round((t - benchmark.startMs) / 1000, 3)),
        y: inLevel.map(([, v]) => round(v, 4)),
      };
    });
    return {
      id: `time-${level}-telemetry-${chart}`,
      x,
      y: { label: name, unit: seriesPer(all[0]!) },
      rules: [],
      series,
    };
  });
}
