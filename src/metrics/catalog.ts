import type { Task } from '../timeline/types.js';
import type { Anchor } from './anchors.js';
import { BATCH_CORPUS, REQUEST_LATENCY } from './catalog/batch.js';
import { CLIENT_AND_TRANSPORT, CONNECTION } from './catalog/common.js';
import { hasTag, type Better, type MetricDefinition, type Scope, type Tag, type Unit } from './catalog/definition.js';
import { DIARIZATION_METRICS } from './catalog/diarization.js';
import { S2S_METRICS } from './catalog/s2s.js';
import { SPEECH_METRICS } from './catalog/tts.js';
import { TRANSCRIPTION_CORPUS, TRANSCRIPTION_FIGURES, TRANSCRIPTION_LATENCY } from './catalog/stt.js';

export { hasTag, measure, type Better, type MetricDefinition, type PointMetric, type Scope, type Tag, type Unit } from './catalog/definition.js';

/**
 * The metric catalog: every figure voxbench reports, defined once, its entries kept by
 * task under `catalog/`. Console, Markdown, CSV, HTML, SLOs and the progress line all
 * pick metrics from here by task and tag, so adding one entry makes a metric appear
 * everywhere.
 */

/** Display order: the reports' columns and rows follow it, so the task groups interleave as they always have. */
const catalog: MetricDefinition[] = [
  ...CONNECTION,
  ...TRANSCRIPTION_LATENCY,
  ...REQUEST_LATENCY,
  ...TRANSCRIPTION_FIGURES,
  ...CLIENT_AND_TRANSPORT,
  ...TRANSCRIPTION_CORPUS,
  ...DIARIZATION_METRICS,
  ...BATCH_CORPUS,
  ...S2S_METRICS,
  ...SPEECH_METRICS,
];

/** Every metric, in display order. Extend it with `addMetric`. */
export const METRICS: readonly MetricDefinition[] = catalog;

/** Adds a metric to the catalog (every output and SLO then knows it); returns its removal. */
export function addMetric(metric: MetricDefinition): () => void {
  if (catalog.some((m) => m.name === metric.name)) throw new Error(`a metric named ${metric.name} is already in the catalog`);
  catalog.push(metric);
  byScope.clear();
  return () => {
    const at = catalog.indexOf(metric);
    if (at >= 0) catalog.splice(at, 1);
    byScope.clear();
  };
}

/**
 * The metrics of `scope` that apply to `task` (every task's when undefined), in catalog
 * order. Listed once per scope and task, not once per session: taking a session's
 * figures asks for them several times (issue 38).
 */
export function metricsOfScope<S extends Scope>(scope: S, task: Task | undefined): ReadonlyArray<Extract<MetricDefinition, { scope: S }>> {
  const key = `${scope}|${task ?? ''}`;
  let list = byScope.get(key);
  if (!list) {
    list = catalog.filter((m) => m.scope === scope && (task === undefined || m.tasks.includes(task)));
    byScope.set(key, list);
  }
  return list as ReadonlyArray<Extract<MetricDefinition, { scope: S }>>;
}
const byScope = new Map<string, readonly MetricDefinition[]>();

export function metricByName(name: string): MetricDefinition | undefined {
  return catalog.find((m) => m.name === name);
}

/** The metrics of `task` (every task when omitted) with any of `tags` (any tag when omitted), in catalog order. */
export function metricsFor(task?: Task, ...tags: Tag[]): MetricDefinition[] {
  return catalog.filter((m) => (task === undefined || m.tasks.includes(task)) && (tags.length === 0 || tags.some((t) => hasTag(m, t, task))));
}

/** A metric's start and end as prose (the quantity, for non-intervals), for people. */
export function definitionOf(metric: MetricDefinition): { from: string; to: string; anchors?: [string, string] } {
  if ('quantity' in metric) return { from: metric.quantity, to: '' };
  if (typeof metric.from === 'string') return { from: metric.from, to: metric.to as string };
  return { from: metric.from.description, to: (metric.to as Anchor<unknown>).description, anchors: [metric.from.name, (metric.to as Anchor<unknown>).name] };
}

/** The catalog as plain data, for reports and `voxbench metrics`. */
export function describeMetrics(): MetricDescription[] {
  return catalog.map((m) => ({
    name: m.name,
    unit: m.unit,
    scope: m.scope,
    tasks: [...m.tasks],
    tags: [...m.tags],
    ...(m.headlineOf ? { headlineOf: [...m.headlineOf] } : {}),
    better: m.better,
    ...definitionOf(m),
    description: m.description,
  }));
}

export interface MetricDescription {
  name: string;
  unit: Unit;
  scope: Scope;
  tasks: Task[];
  tags: Tag[];
  /** The tasks it heads, where its `headline` tag is not for all of `tasks`. */
  headlineOf?: Task[];
  better: Better;
  from: string;
  to: string;
  /** For intervals: the names of the start and end anchors. */
  anchors?: [string, string];
  description: string;
}
