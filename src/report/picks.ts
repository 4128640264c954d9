import { hasTag, type MetricDescription, type Tag } from '../metrics/catalog.js';
import type { Task } from '../timeline/types.js';
import { benchmarksByLevel } from './levels.js';
import type { Benchmark, Report, ReportSession } from './schema.js';

/** What picking needs of a report: its catalog and its task. */
type Catalogued = Pick<Report, 'metricDefinitions'> & { config: Pick<Report['config'], 'task'> };

/**
 * Which metrics an output shows: the report's own catalog (`metricDefinitions`), for
 * its task, by tag, in catalog order. Outputs never name metrics themselves, so a
 * metric added to the catalog appears in every output.
 */
export function metricsOf(report: Catalogued, ...tags: Tag[]): MetricDescription[] {
  return report.metricDefinitions.filter(
    (d) => d.tasks.includes(report.config.task) && (tags.length === 0 || tags.some((t) => hasTag(d, t, report.config.task))),
  );
}

/** Metrics for summaries: everything but transport counters and corpus values, which have their own lines. */
export function summaryMetrics(report: Catalogued): MetricDescription[] {
  return metricsOf(report, 'headline', 'latency', 'quality', 'throughput', 'client').filter((d) => d.scope !== 'corpus');
}

/**
 * The corpus figures beside the quality line: throughput and transport, one value per
 * level. Quality figures (corpus WER, headline or not) are the quality line's.
 */
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

/** The task a level ran: its sessions' (a merge with --allow-mixed holds levels of several tasks), else the run's. */
export function levelTask(report: Catalogued, benchmark: Pick<Benchmark, 'sessions'>): Task {
  return benchmark.sessions[0]?.figures.task ?? report.config.task;
}

/** The report as one level sees it, so its metrics are picked by that level's own task. */
export function levelCatalog(report: Catalogued, benchmark: Pick<Benchmark, 'sessions'>): Catalogued {
  const task = levelTask(report, benchmark);
  return task === report.config.task ? report : { metricDefinitions: report.metricDefinitions, config: { task } };
}

/** Levels by increasing load, grouped by their task (one group but for a mixed merge), in order of first appearance. */
export function levelsByTask(report: Report): Map<Task, Benchmark[]> {
  const groups = new Map<Task, Benchmark[]>();
  for (const b of benchmarksByLevel(report)) {
    const task = levelTask(report, b);
    groups.set(task, [...(groups.get(task) ?? []), b]);
  }
  return groups;
}

/** A level's word error rate, pooled over its corpus. */
export interface LevelWer {
  /** What was scored: the transcripts (`corpus WER`), or a catalog figure such as `tts_corpus_wer`. */
  name: string;
  value: number;
  ci95?: [number, number];
  /** What it was counted over, e.g. "8 turns". */
  over?: string;
}

/**
 * The WER a level has, whatever its task: the transcripts' against their references
 * (transcription, and the turns of speech to speech), else its task's corpus WER from
 * the catalog (speech generation's round trip, `tts_corpus_wer`); null when nothing was scored.
 */
export function levelWer(report: Catalogued, benchmark: Pick<Benchmark, 'sessions' | 'summary'>): LevelWer | null {
  const { quality, corpus } = benchmark.summary;
  if (quality.wer !== null)
    return {
      name: 'corpus WER',
      value: quality.wer,
      ...(quality.werCi95 ? { ci95: quality.werCi95 } : {}),
      over: `${quality.turns} turn${quality.turns === 1 ? '' : 's'}`,
    };
  const metric = metricsOf(levelCatalog(report, benchmark), 'quality').find(
    (d) => d.scope === 'corpus' && d.name.endsWith('wer') && typeof corpus[d.name] === 'number',
  );
  return metric ? { name: metric.name, value: corpus[metric.name]! } : null;
}

/** Sessions behind a benchmark's figures: measured and completed. */
export function measuredCompleted(sessions: readonly ReportSession[]): ReportSession[] {
  return sessions.filter((s) => s.phase === 'measured' && s.outcome.status === 'completed');
}
