import type { Report } from '../schema.js';
import { coldRule, coldWarmMetrics, coldWarmOf } from '../cold-warm.js';
import { benchmarksByLevel } from '../levels.js';
import { formatFigure } from './format.js';
import { html } from './markup.js';
import { metricTitle } from './metrics.js';
import { note, table, type Section } from './section.js';

/**
 * Sessions that started cold apart from warm ones, per level: counts and the headline
 * latencies' p50 and p95 in each. Left out of reports from before the split; a note
 * when no measured session started cold (`--warmup` left the first out, say).
 */
export function coldWarmSection(report: Report): Section | undefined {
  const split = report.benchmarks.find((b) => b.summary.coldWarm)?.summary.coldWarm;
  if (!split) return undefined;
  const metrics = coldWarmMetrics(report);
  const rows = benchmarksByLevel(report).flatMap((b) => {
    const coldWarm = coldWarmOf(b);
    if (!coldWarm) return [];
    return (['cold', 'warm'] as const).map((start) => {
      const group = coldWarm[start];
      const figures = metrics.map((d) => {
        const dist = group.metrics[d.name];
        return dist ? `${formatFigure(dist.p50, d)} / ${formatFigure(dist.p95, d)}` : 'n/a';
      });
      return [b.label, html`<span class="chip">${start}</span>`, group.sessions, group.completed, group.failed, ...figures];
    });
  });
  const headers = [
    'level',
    'start',
    'sessions',
    'completed',
    'failed',
    ...metrics.map((d) => ({ label: html`<code>${d.name}</code> p50 / p95`, title: metricTitle(report, d.name) })),
  ];
  return {
    id: 'cold-warm',
    title: 'Cold and warm starts',
    charts: [],
    body: html`${note(`Measured sessions by how they found the target (${coldRule(split.gapMs)}); every other figure counts both.`)}${
      rows.length === 0 ? note('No measured session started cold.') : table(headers, rows, 'figures')
    }`,
  };
}
