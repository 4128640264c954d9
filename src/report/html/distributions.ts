import type { Report } from '../schema.js';
import type { ChartSpec } from './chart-spec.js';
import { cdfPoints, round } from './downsample.js';
import { benchmarksByLevel } from '../levels.js';
import { html } from './markup.js';
import { distributionMetrics, metricAxis, metricTitle, storedValues } from './metrics.js';
import { measuredCompleted } from '../picks.js';
import { metricsOf } from '../picks.js';
import { levelColors } from './palette.js';
import { chartFigure, legend, note, type Section } from './section.js';

/** Steps per CDF curve: smooth at chart width, small for runs of thousands of sessions. */
const CDF_POINTS = 160;

/** One CDF per latency metric of the task and per metric an SLO names, one curve per load level. */
export function distributionsSection(report: Report): Section {
  const section = { id: 'distributions', title: 'Distributions' };
  const levels = benchmarksByLevel(report);
  const colors = levelColors(levels.length);
  // Picked once per level, not once per metric: a level can hold 100,000 sessions.
  const metrics = distributionMetrics(report);
  const names = new Set(metrics.map((d) => d.name));
  const stored = levels.map((b) => storedValues(measuredCompleted(b.sessions), names));
  const charts: ChartSpec[] = metrics.map((d) => {
    const { label, unit, value } = metricAxis(d);
    return {
      id: `cdf-${d.name}`,
      x: { label, unit },
      y: { label: 'at or below', unit: '%', min: 0, max: 100 },
      rules: [],
      legend: false,
      series: levels.flatMap((b, i) => {
        const { x, y } = cdfPoints(stored[i]!.get(d.name) ?? [], CDF_POINTS);
        return x.length === 0
          ? []
          : [
              {
                label: b.label,
                color: colors[i]!,
                style: 'step' as const,
                x: x.map(value),
                y: y.map((v) => round(v, 2)),
              },
            ];
      }),
    };
  });
  const pooled = metricsOf(report)
    .filter((d) => d.scope === 'input_samples')
    .map((d) => d.name);
  if (charts.length === 0) return { ...section, charts, body: note('No measured session completed, so there is no latency to draw.') };
  return {
    ...section,
    charts,
    body: html`${note(
      `Cumulative distributions over measured completed sessions, one curve per load level. Turn metrics count every turn.` +
        (pooled.length > 0 ? ` Per-sample metrics (${pooled.join(', ')}) are pooled over events; their percentiles are under All figures by level.` : ''),
    )}
${legend(levels.map((b, i) => ({ label: b.label, color: colors[i]! })))}
<div class="grid">${charts.map((c) => chartFigure(c, c.x.label, metricTitle(report, c.x.label)))}</div>`,
  };
}
