import type { Report } from '../schema.js';
import type { ChartSpec } from './chart-spec.js';
import { cdfPoints, round } from './downsample.js';
import { benchmarksByLevel } from '../levels.js';
import { html } from './markup.js';
import { latencyMetrics, measuredCompleted, metricTitle, storedValues } from './metrics.js';
import { levelColors } from './palette.js';
import { chartFigure, legend, note, type Section } from './section.js';

/** Steps per CDF curve: smooth at chart width, small for runs of thousands of sessions. */
const CDF_POINTS = 160;

/** One CDF per latency metric, one curve per load level. */
export function distributionsSection(report: Report): Section {
  const section = { id: 'distributions', title: 'Latency distributions' };
  const levels = benchmarksByLevel(report);
  const colors = levelColors(levels.length);
  // Picked once per level, not once per metric: a level can hold 100,000 sessions.
  const sessions = levels.map((b) => measuredCompleted(b.sessions));
  const charts: ChartSpec[] = latencyMetrics(report).map((name) => ({
    id: `cdf-${name}`,
    x: { label: name, unit: 'ms' },
    y: { label: 'at or below', unit: '%', min: 0, max: 100 },
    rules: [],
    legend: false,
    series: levels.flatMap((b, i) => {
      const { x, y } = cdfPoints(storedValues(sessions[i]!, name), CDF_POINTS);
      return x.length === 0 ? [] : [{ label: b.label, color: colors[i]!, style: 'step' as const, x: x.map((v) => round(v, 1)), y: y.map((v) => round(v, 2)) }];
    }),
  }));
  const pooled = report.metricDefinitions.filter((d) => d.scope === 'input_samples').map((d) => d.name);
  if (charts.length === 0) return { ...section, charts, body: note('No measured session completed, so there is no latency to draw.') };
  return {
    ...section,
    charts,
    body: html`${note(
      `Cumulative distributions over measured completed sessions, one curve per load level. Turn metrics count every turn. ` +
        `Per-sample metrics (${pooled.join(', ')}) are pooled over events; their percentiles are under All figures by level.`,
    )}
${legend(levels.map((b, i) => ({ label: b.label, color: colors[i]! })))}
<div class="grid">${charts.map((c) => chartFigure(c, c.x.label, metricTitle(report, c.x.label)))}</div>`,
  };
}
