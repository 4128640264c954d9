import type { Slo } from '../../metrics/slo.js';
import type { Report } from '../schema.js';
import type { ChartSpec, RuleSpec, SeriesSpec } from './chart-spec.js';
import { definedPoints as points } from './downsample.js';
import { formatPlain } from './format.js';
import { benchmarksByLevel, loadAxis, loadLevel } from '../levels.js';
import { html } from './markup.js';
import { curveMetrics, ERROR_RATE_TITLE, metricAxis, metricTitle, sloList, THROUGHPUT_TITLE } from './metrics.js';
import { throughputLabel } from './workload.js';
import { COLORS } from './palette.js';
import { chartFigure, note, type Section } from './section.js';
import { serverByLevel } from './server-by-level.js';

/** Charts of headline figures against load; more would repeat the distributions above. Every metric an SLO names is drawn besides. */
export const CURVE_METRICS = 4;
const QUANTILES = ['p50', 'p95', 'p99'] as const;

/** How the task's headline figures, throughput and errors change with load: the curve a sweep or capacity search traces, with the server's scraped series per level. */
export function loadCurvesSection(report: Report): Section {
  const section = { id: 'load', title: 'Figures, throughput and errors against load' };
  if (report.benchmarks.length < 2) {
    return {
      ...section,
      charts: [],
      body: note('One load level ran. A sweep (--profile sweep) or a capacity search (--profile capacity) draws these curves.'),
    };
  }
  const levels = benchmarksByLevel(report);
  const axis = loadAxis(report);
  const xs = levels.map((b) => loadLevel(b.profile));
  // Concurrency in whole sessions from the lowest level run; rates from zero.
  const x = axis.whole ? { label: axis.label, unit: axis.unit, whole: true } : { label: axis.label, unit: axis.unit, fromZero: true };
  const slos = sloList(report);
  const capacity = capacityRules(report);

  const figureCharts: ChartSpec[] = curveMetrics(report, CURVE_METRICS).map((d) => {
    const { name } = d;
    const y = metricAxis(d);
    const quantileSeries: SeriesSpec[] = QUANTILES.map((q) => ({
      label: q,
      color: COLORS[q],
      style: 'line-points',
      ...points(
        xs,
        levels.map((b) => scaled(b.summary.metrics[name]?.[q], y.value)),
      ),
    }));
    const sloSeries: SeriesSpec[] = slos
      .filter((slo) => measuredOn(slo, name) && !isPlotted(slo))
      .map((slo) => ({
        label: `${slo.text} (measured)`,
        color: COLORS.slo,
        style: 'line-points',
        dash: true,
        ...points(
          xs,
          levels.map((b) => scaled(b.summary.slos.find((r) => r.slo === slo.text)?.value, y.value)),
        ),
      }));
    const thresholds = slos.filter((slo) => measuredOn(slo, name)).map((slo) => sloRule(y.value(slo.threshold), slo.text));
    const series = [...quantileSeries, ...sloSeries].filter((s) => s.x.length > 0);
    return { id: `load-${name}`, x, y: { label: name, unit: y.unit, fromZero: true }, series, rules: [...thresholds, ...capacity] };
  });

  const throughput: ChartSpec = {
    id: 'load-throughput',
    x,
    y: { label: throughputLabel(report), unit: 'audio s/s', fromZero: true },
    series: [
      {
        label: 'audio s per wall s',
        color: COLORS.throughput,
        style: 'line-points',
        ...points(
          xs,
          levels.map((b) => b.summary.throughput.audioSPerWallS),
        ),
      },
    ],
    rules: capacity,
  };
  const errorRate: ChartSpec = {
    id: 'load-error-rate',
    x,
    y: { label: 'error rate', unit: '%', fromZero: true },
    series: [
      {
        label: 'error rate',
        color: COLORS.errorRate,
        style: 'line-points',
        ...points(
          xs,
          levels.map((b) => (b.summary.errorRate === null ? null : b.summary.errorRate * 100)),
        ),
      },
    ],
    rules: [...slos.filter((slo) => slo.aggregate.stat === 'error_rate').map((slo) => sloRule(slo.threshold * 100, slo.text)), ...capacity],
  };

  return {
    ...section,
    charts: [...figureCharts, throughput, errorRate],
    body: html`${note(`Each point is one load level. Red lines are SLO thresholds${report.capacity ? '; the green line is the capacity found, the grey one the first level that failed' : ''}.`)}
<div class="grid">
${figureCharts.map((c) => chartFigure(c, `${c.y.label} against ${axis.label}`, metricTitle(report, c.y.label), 'p50, p95, p99'))}
${chartFigure(throughput, `${throughputLabel(report)} against ${axis.label}`, THROUGHPUT_TITLE)}
${chartFigure(errorRate, `error rate against ${axis.label}`, ERROR_RATE_TITLE)}
</div>
${serverByLevel(report, levels)}`,
  };
}

/** A level's figure on the chart's axis; none stays none. */
function scaled(value: number | null | undefined, onAxis: (v: number) => number): number | null {
  return value === null || value === undefined ? null : onAxis(value);
}

function measuredOn(slo: Slo, metric: string): boolean {
  return 'metric' in slo.aggregate && slo.aggregate.metric === metric;
}

/** Whether the SLO's statistic is one of the plotted quantiles, so its threshold reads against that curve. */
function isPlotted(slo: Slo): boolean {
  return slo.aggregate.stat === 'percentile' && (QUANTILES as readonly string[]).includes(`p${slo.aggregate.p}`);
}

function sloRule(value: number, text: string): RuleSpec {
  return { axis: 'y', value, label: `SLO ${text}`, color: COLORS.slo, dash: true };
}

function capacityRules(report: Report): RuleSpec[] {
  const capacity = report.capacity;
  if (!capacity) return [];
  return [
    ...(capacity.answer === null
      ? []
      : [{ axis: 'x' as const, value: capacity.answer, label: `capacity ${formatPlain(capacity.answer)}`, color: COLORS.capacity }]),
    ...(capacity.failsAt === null
      ? []
      : [{ axis: 'x' as const, value: capacity.failsAt, label: `fails at ${formatPlain(capacity.failsAt)}`, color: COLORS.failsAt, dash: true }]),
  ];
}
