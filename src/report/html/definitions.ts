import { metricsOf } from '../picks.js';
import type { Report } from '../schema.js';
import { html } from './markup.js';
import { hasFigure } from './metrics.js';
import { table, type Section } from './section.js';

/** The metric catalog as the run used it, the metrics it has figures of: every figure's start and end events. */
export function definitionsSection(report: Report): Section {
  return {
    id: 'definitions',
    title: 'Metric definitions',
    charts: [],
    body: html`${table(
      ['metric', 'unit', 'scope', 'from', 'to', 'meaning'],
      metricsOf(report)
        .filter((d) => hasFigure(report, d.name))
        .map((d) => [html`<code>${d.name}</code>`, d.unit, d.scope.replace('_', ' '), d.from, d.to || '–', d.description]),
      'definitions',
    )}<p class="note">Percentiles: ${report.percentileMethod}.</p>`,
  };
}
