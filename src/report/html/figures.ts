import type { Distribution } from '../../metrics/stats.js';
import type { Benchmark, Report } from '../schema.js';
import { formatFigure, formatMetric, formatPercent } from './format.js';
import { benchmarksByLevel } from '../levels.js';
import { html, type Html } from './markup.js';
import { metricTitle } from './metrics.js';
import { metricsOf } from '../picks.js';
import { levelWorkload } from './workload.js';
import { table, type Section } from './section.js';
import { plural } from '../../util/plural.js';

const STATS = ['mean', 'min', 'p50', 'p90', 'p95', 'p99', 'max'] as const satisfies ReadonlyArray<keyof Distribution>;

/** Every figure of every level, as the JSON report holds it, one fold per level. */
export function figuresSection(report: Report): Section {
  const levels = benchmarksByLevel(report);
  return {
    id: 'figures',
    title: 'All figures by level',
    charts: [],
    body: html`${levels.map((b) => html`<details${levels.length === 1 ? html` open` : ''}><summary>${b.label} <span class="muted">${levelSummary(b)}</span></summary>${levelFigures(report, b)}</details>`)}`,
  };
}

function levelSummary(b: Benchmark): string {
  const { sessions, excluded } = b.summary;
  const left = excluded.warmup + excluded.cooldown;
  return (
    `${plural(sessions.total, 'session')} · ${sessions.completed} completed · ${sessions.failed} failed · ${sessions.incomplete} incomplete · error rate ${formatPercent(b.summary.errorRate)}` +
    (left ? ` · ${excluded.warmup} warm-up and ${excluded.cooldown} cool-down sessions left out of the figures` : '')
  );
}

function levelFigures(report: Report, b: Benchmark): Html {
  const delay = b.clientHealth.eventLoopDelay;
  const receive = b.clientHealth.receiveDelay;
  const corpus = metricsOf(report)
    .filter((d) => d.scope === 'corpus')
    .flatMap((d) => {
      const value = b.summary.corpus[d.name];
      return value === null || value === undefined ? [] : [`${d.name} ${formatFigure(value, d)}`];
    });
  const rows = metricsOf(report).flatMap((d) => {
    const dist = b.summary.metrics[d.name];
    return dist ? [[html`<code title="${metricTitle(report, d.name)}">${d.name}</code>`, dist.count, ...STATS.map((s) => formatFigure(dist[s], d))]] : [];
  });
  return html`<p class="note">${levelWorkload(report, b)}${corpus.length > 0 ? ` Corpus: ${corpus.join(', ')}.` : ''}
Client: ${b.clientHealth.verdict} Event-loop delay p50 ${formatMetric(delay.p50Ms, 'ms')}, p99 ${formatMetric(delay.p99Ms, 'ms')}, max ${formatMetric(delay.maxMs, 'ms')}${receive ? `; receive-stamp delay (loopback probe) p50 ${formatMetric(receive.p50Ms, 'ms')}, p99 ${formatMetric(receive.p99Ms, 'ms')}, max ${formatMetric(receive.maxMs, 'ms')}` : ''}${b.clientHealth.capHits ? `; ${plural(b.clientHealth.capHits, 'session')} found the open-session cap reached` : ''}.</p>
${table(['metric', 'count', ...STATS], rows, 'figures')}`;
}
