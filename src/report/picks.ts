import { hasTag, type MetricDescription, type Tag } from '../metrics/catalog.js';
import type { Report } from './schema.js';

/**
 * Which metrics an output shows: the report's own catalog (`metricDefinitions`), for
 * its task, by tag, in catalog order. Outputs never name metrics themselves, so a
 * metric added to the catalog appears in every output.
 */
/** What picking needs of a report: its catalog and its task. */
type Catalogued = Pick<Report, 'metricDefinitions'> & { config: Pick<Report['config'], 'task'> };

export function metricsOf(report: Catalogued, ...tags: Tag[]): MetricDescription[] {
  return report.metricDefinitions.filter(
    (d) => d.tasks.includes(report.config.task) && (tags.length === 0 || tags.some((t) => hasTag(d, t, report.config.task))),
  );
}

/** Metrics for summaries: everything but transport counters and corpus values, which have their own lines. */
export function summaryMetrics(report: Catalogued): MetricDescription[] {
  return metricsOf(report, 'headline', 'latency', 'quality', 'throughput', 'client').filter((d) => d.scope !== 'corpus');
}

/** The corpus figures beside the quality line (which has corpus WER): throughput and transport, one value per level. */
export function corpusMetrics(report: Catalogued): MetricDescription[] {
  return metricsOf(report, 'headline', 'throughput', 'transport').filter((d) => d.scope === 'corpus' && !d.tags.includes('quality'));
}

/** The headline latencies, first the ones people look at first. */
export function headlineLatencies(report: Catalogued): MetricDescription[] {
  return metricsOf(report, 'headline').filter((d) => d.tags.includes('latency') && d.scope !== 'corpus');
}

export function definitionIn(report: Catalogued, name: string): MetricDescription | undefined {
  return report.metricDefinitions.find((d) => d.name === name);
}

/** A metric's start and end in words: `from → to` for intervals, the quantity otherwise. */
export function spanText(d: Pick<MetricDescription, 'from' | 'to'>): string {
  return d.to ? `${d.from} → ${d.to}` : d.from;
}
