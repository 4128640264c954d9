import type { SessionRecord, SessionTimeline, Task } from '../timeline/types.js';
import { isSpeechTask, sessionEndMs } from '../timeline/types.js';
import { sessionView, type InputView, type ResponseView, type SessionView } from '../views/session-view.js';
import { measure, METRICS, type PointMetric } from './catalog.js';
import { costOf, type Cost, type Pricing } from './cost.js';
import type { Interval } from './bootstrap.js';
import { corpusSpeakers, type CorpusSpeakers } from './diarization/session.js';
import { LEGACY_NORMALIZER } from './normalizers/index.js';
import { corpusWerInterval, normalizerList, pooledErrors, qualityBy, scoredInputs, type GroupQuality } from './quality.js';
import { evaluateSlos, type Slo, type SloResult } from './slo.js';
import { summarize, type Distribution } from './stats.js';
import { errorRate } from './wer.js';
import type { Phase } from './window.js';
import type { Start } from './cold-start.js';

/** Scalar metric values of one session: session-scoped ones, one set per input and one per response. */
export interface SessionMetrics {
  session: Record<string, number>;
  inputs: Array<Record<string, number>>;
  responses: Array<Record<string, number>>;
}

/** Each metric of `scope` and `task` with a value on `view`, by name. */
function valuesOn(scope: PointMetric['scope'], task: Task | undefined, view: InputView | ResponseView | SessionView): Record<string, number> {
  const values: Record<string, number> = {};
  for (const metric of METRICS) {
    if (metric.scope !== scope || (task !== undefined && !metric.tasks.includes(task))) continue;
    const value = measure(metric, view);
    if (value !== undefined) values[metric.name] = value;
  }
  return values;
}

function metricsOn(view: SessionView, task: Task | undefined): SessionMetrics {
  return {
    session: valuesOn('session', task, view),
    inputs: view.inputs.map((input) => valuesOn('input', task, input)),
    responses: view.responses.map((response) => valuesOn('response', task, response)),
  };
}

export function computeSessionMetrics(timeline: SessionTimeline): SessionMetrics {
  return metricsOn(sessionView(timeline), timeline.task);
}

/** One session's values of every metric of a task: the scalars a report stores on it, and the samples of each input, joined. */
export interface SessionValues {
  metrics: SessionMetrics;
  samples: Record<string, number[]>;
}

/**
 * The values of every metric of `task` (the timeline's own by default; every metric when
 * undefined) on one session, measured once for every figure that pools them: the
 * summary, the cold and warm figures and the session's own stored metrics.
 */
export function sessionValues(timeline: SessionTimeline, task: Task | undefined = timeline.task): SessionValues {
  const view = sessionView(timeline);
  const samples: Record<string, number[]> = {};
  for (const metric of METRICS) {
    if (metric.scope !== 'input_samples' || (task !== undefined && !metric.tasks.includes(task))) continue;
    samples[metric.name] = view.inputs.flatMap((input) => metric.samples(input));
  }
  return { metrics: metricsOn(view, task), samples };
}

/**
 * The values of every metric of `task` (every metric, when undefined), pooled over the
 * sessions' values: per session, per input, per response, or per sample, in session order.
 */
export function poolValues(sessions: readonly SessionValues[], task: Task | undefined): Record<string, number[]> {
  const pooled: Record<string, number[]> = {};
  for (const metric of METRICS) {
    if (metric.scope === 'corpus' || (task !== undefined && !metric.tasks.includes(task))) continue;
    const { name } = metric;
    const values: number[] = [];
    pooled[name] = values;
    for (const { metrics, samples } of sessions) {
      switch (metric.scope) {
        case 'session':
          if (name in metrics.session) values.push(metrics.session[name]!);
          break;
        case 'input':
          for (const input of metrics.inputs) if (name in input) values.push(input[name]!);
          break;
        case 'response':
          for (const response of metrics.responses) if (name in response) values.push(response[name]!);
          break;
        case 'input_samples':
          for (const value of samples[name] ?? []) values.push(value);
      }
    }
  }
  return pooled;
}

/**
 * The values of every metric of the timelines' task (every metric, when there are
 * none), pooled over them: per session, per input, per response, or per sample.
 */
export function poolMetricValues(timelines: readonly SessionTimeline[]): Record<string, number[]> {
  const task = timelines[0]?.task;
  return poolValues(
    timelines.map((timeline) => sessionValues(timeline, task)),
    task,
  );
}

/** The corpus metrics over the given sessions, by name. */
export function corpusValues(views: readonly SessionView[]): Record<string, number | null> {
  return Object.fromEntries(METRICS.flatMap((m) => (m.scope === 'corpus' ? [[m.name, m.reduce(views)]] : [])));
}

export interface FailureCount {
  class: string;
  stage: string;
  code?: string;
  httpStatus?: number;
  closeCode?: number;
  count: number;
  /** The first message seen for this failure, for people. */
  message: string;
}

export interface BenchmarkSummary {
  /** Every session of the benchmark, warm-up and cool-down included. */
  sessions: { total: number; completed: number; failed: number; incomplete: number };
  /** Sessions left out of the figures below (see `phase` on each session). */
  excluded: { warmup: number; cooldown: number };
  /** failed / (completed + failed) over measured sessions; null when none finished either way. */
  errorRate: number | null;
  failures: FailureCount[];
  incomplete: Array<{ reason: string; stage: string; count: number }>;
  /** Turns of completed sessions: how many were planned and got a final transcript, and where their boundaries came from. */
  turns: {
    planned: number;
    finalized: number;
    boundaries: 'client commits' | 'server VAD' | 'none';
    /** End-of-speech sources behind `finalization_ms`, by count of turns. */
    eosSources: Record<string, number>;
  };
  /** Transcription quality pooled over the corpus: errors summed over turns with a reference, then divided. */
  quality: {
    /** The normalizer ids the turns were scored with, comma-separated when they differ (each input records its own). */
    normalizer: string;
    turns: number;
    /** Corpus WER; null when no turn had a reference and a final transcript. */
    wer: number | null;
    substitutions: number;
    deletions: number;
    insertions: number;
    referenceWords: number;
    /** 95% percentile-bootstrap interval of corpus WER: 1000 resamples of the turns, seed 1, so reproducible. */
    werCi95: Interval | null;
    /** Corpus CER, and its character edits (spaces between words count as characters). */
    cer: number | null;
    chars: { substitutions: number; deletions: number; insertions: number; reference: number };
    /** Corpus WER and CER of each split, and of each language (the input's, `unlabelled` without one). */
    bySplit: Record<string, GroupQuality>;
    byLanguage: Record<string, GroupQuality>;
  };
  /** Events out of the protocol's order (`protocol_anomalies`), over measured sessions, failed ones included: sessions with any, and the count of each reason. */
  anomalies: { sessions: number; reasons: Record<string, number> };
  /** Distributions over measured completed sessions. */
  metrics: Record<string, Distribution | null>;
  /** Corpus metrics over measured completed sessions (see the catalog's `corpus` scope). */
  corpus: Record<string, number | null>;
  /** Speaker attribution pooled over the corpus with bootstrap intervals, when inputs with reference turns got speaker labels. */
  diarization?: CorpusSpeakers;
  slos: SloResult[];
  /** Measured sessions that started cold apart from the warm ones, with their own figures; absent in reports from before it existed. */
  coldWarm?: ColdWarm;
  /** With a price: the deployment's cost over the measured interval, per audio hour. */
  cost?: Cost;
  throughput: {
    /** From the first measured session's start to the last one's end. */
    wallS: number;
    /** Audio of measured completed sessions: sent (transcription), or generated (speech generation). */
    audioS: number;
    audioSPerWallS: number;
    sessionsPerS: number;
  };
}

/**
 * The values of the records at `indices` pooled as `poolMetricValues` pools their
 * timelines, from `values` (each record's own, measured once) where a record is of the
 * first one's task.
 */
function pooledAt(indices: readonly number[], records: readonly SessionRecord[], values: readonly SessionValues[]): Record<string, number[]> {
  const task = indices.length > 0 ? records[indices[0]!]!.timeline.task : undefined;
  return poolValues(
    indices.map((i) => (records[i]!.timeline.task === task ? values[i]! : sessionValues(records[i]!.timeline, task))),
    task,
  );
}

/** Indices of the records that `keep` keeps. */
function indicesWhere(records: readonly SessionRecord[], keep: (record: SessionRecord, i: number) => boolean): number[] {
  const indices: number[] = [];
  records.forEach((record, i) => {
    if (keep(record, i)) indices.push(i);
  });
  return indices;
}

/**
 * A benchmark's summary: counts over every session, figures over the measured ones.
 * `values`: each record's `sessionValues`, where the caller has them already.
 */
export function summarizeBenchmark(
  records: readonly SessionRecord[],
  phases: readonly Phase[],
  slos: readonly Slo[],
  pricing?: Pricing,
  values: readonly SessionValues[] = records.map((r) => sessionValues(r.timeline)),
): BenchmarkSummary {
  const measured = records.filter((_, i) => phases[i] === 'measured');
  const completedAt = indicesWhere(records, (r, i) => phases[i] === 'measured' && r.outcome.status === 'completed');
  const completed = completedAt.map((i) => records[i]!);
  const failedCount = measured.filter((r) => r.outcome.status === 'failed').length;
  const pooled = pooledAt(completedAt, records, values);
  const views = completed.map((r) => sessionView(r.timeline));
  // Audio processed: streamed in for transcription, generated for speech generation.
  const speech = isSpeechTask(records[0]?.timeline.task);
  const audioS = ((speech ? pooled.audio_out_ms : pooled.audio_ms) ?? []).reduce((sum, v) => sum + v, 0) / 1000;
  const chars = speech ? (pooled.chars ?? []).reduce((sum, v) => sum + v, 0) : undefined;
  const wallS = measuredSpanMs(measured) / 1000;
  const finished = completed.length + failedCount;
  const errorRate = finished > 0 ? failedCount / finished : null;
  const count = (status: string) => records.filter((r) => r.outcome.status === status).length;
  return {
    sessions: { total: records.length, completed: count('completed'), failed: count('failed'), incomplete: count('incomplete') },
    excluded: { warmup: phases.filter((p) => p === 'warmup').length, cooldown: phases.filter((p) => p === 'cooldown').length },
    errorRate,
    failures: countFailures(records),
    incomplete: countIncomplete(records),
    turns: summarizeTurns(views),
    quality: corpusQuality(views),
    anomalies: countAnomalies(measured),
    metrics: Object.fromEntries(Object.entries(pooled).map(([name, values]) => [name, summarize(values)])),
    corpus: corpusValues(views),
    ...diarizationOf(views),
    slos: evaluateSlos(slos, pooled, errorRate),
    ...(pricing ? { cost: costOf(pricing, wallS, audioS, chars) } : {}),
    throughput: {
      wallS,
      audioS,
      audioSPerWallS: wallS > 0 ? audioS / wallS : 0,
      sessionsPerS: wallS > 0 ? completed.length / wallS : 0,
    },
  };
}

function diarizationOf(views: readonly SessionView[]): Pick<BenchmarkSummary, 'diarization'> {
  const diarization = corpusSpeakers(views);
  return diarization ? { diarization } : {};
}

/**
 * From the first measured session's start to the last one's end, per run: a resumed
 * run, or a merge of runs, counts the union of each run's own span, so the time between
 * sequential runs does not count and runs measured at once (shards) count once.
 */
function measuredSpanMs(records: readonly SessionRecord[]): number {
  const runs = new Map<string, { firstStartMs: number; lastEndMs: number }>();
  for (const r of records) {
    const key = r.resumedFrom ?? '';
    const run = runs.get(key) ?? { firstStartMs: Infinity, lastEndMs: -Infinity };
    run.firstStartMs = Math.min(run.firstStartMs, r.timeline.startMs);
    run.lastEndMs = Math.max(run.lastEndMs, sessionEndMs(r.timeline));
    runs.set(key, run);
  }
  let total = 0;
  let coveredTo = -Infinity;
  for (const run of [...runs.values()].sort((a, b) => a.firstStartMs - b.firstStartMs)) {
    const from = Math.max(run.firstStartMs, coveredTo);
    if (run.lastEndMs > from) total += run.lastEndMs - from;
    coveredTo = Math.max(coveredTo, run.lastEndMs);
  }
  return total;
}

function summarizeTurns(views: readonly SessionView[]): BenchmarkSummary['turns'] {
  const eosSources: Record<string, number> = {};
  let planned = 0;
  let finalized = 0;
  for (const view of views) {
    for (const input of view.inputs) {
      planned++;
      if (input.transcript.final) finalized++;
      if (input.plan?.kind === 'audio') eosSources[input.plan.eosSource] = (eosSources[input.plan.eosSource] ?? 0) + 1;
    }
  }
  const detection = views[0]?.timeline.turnDetection;
  return { planned, finalized, boundaries: detection === undefined ? 'none' : detection === 'client' ? 'client commits' : 'server VAD', eosSources };
}

function countAnomalies(records: readonly SessionRecord[]): BenchmarkSummary['anomalies'] {
  const reasons: Record<string, number> = {};
  let sessions = 0;
  for (const record of records) {
    const { anomalies } = sessionView(record.timeline);
    if (anomalies.length > 0) sessions++;
    for (const a of anomalies) reasons[a.reason] = (reasons[a.reason] ?? 0) + 1;
  }
  return { sessions, reasons };
}

function corpusQuality(views: readonly SessionView[]): BenchmarkSummary['quality'] {
  const scored = scoredInputs(views);
  const { words, chars } = pooledErrors(scored);
  // Every audio input's, scored or not, so a run without references still names its normalizer.
  const recorded = views.flatMap((v) => v.inputs.flatMap((i) => (i.plan?.kind === 'audio' ? [i.plan.normalizer ?? LEGACY_NORMALIZER] : [])));
  return {
    normalizer: normalizerList(recorded) || LEGACY_NORMALIZER,
    turns: scored.length,
    wer: errorRate(words),
    substitutions: words.substitutions,
    deletions: words.deletions,
    insertions: words.insertions,
    referenceWords: words.words,
    werCi95: corpusWerInterval(scored),
    cer: errorRate(chars),
    chars: { substitutions: chars.substitutions, deletions: chars.deletions, insertions: chars.insertions, reference: chars.chars },
    bySplit: qualityBy(scored, (i) => i.split),
    byLanguage: qualityBy(scored, (i) => i.language ?? 'unlabelled'),
  };
}

function countFailures(records: readonly SessionRecord[]): FailureCount[] {
  const groups = new Map<string, FailureCount>();
  for (const { outcome } of records) {
    if (outcome.status !== 'failed') continue;
    const f = outcome.failure;
    const key = [f.class, f.stage, f.code, f.httpStatus, f.closeCode].join('|');
    const group = groups.get(key);
    if (group) group.count++;
    else {
      groups.set(key, {
        class: f.class,
        stage: f.stage,
        ...(f.code !== undefined ? { code: f.code } : {}),
        ...(f.httpStatus !== undefined ? { httpStatus: f.httpStatus } : {}),
        ...(f.closeCode !== undefined ? { closeCode: f.closeCode } : {}),
        count: 1,
        message: f.message,
      });
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

function countIncomplete(records: readonly SessionRecord[]): Array<{ reason: string; stage: string; count: number }> {
  const groups = new Map<string, { reason: string; stage: string; count: number }>();
  for (const { outcome } of records) {
    if (outcome.status !== 'incomplete') continue;
    const key = `${outcome.reason}|${outcome.stage}`;
    const group = groups.get(key) ?? { reason: outcome.reason, stage: outcome.stage, count: 0 };
    group.count++;
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** Measured sessions that started one way: their count by outcome, and each metric's distribution over the completed ones. */
export interface StartFigures {
  sessions: number;
  completed: number;
  failed: number;
  metrics: Record<string, Distribution | null>;
}

/** A benchmark's measured sessions, cold and warm apart, with the gap that told them apart. */
export interface ColdWarm {
  gapMs: number;
  cold: StartFigures;
  warm: StartFigures;
}

/** The figures of the measured sessions that started cold, and of those that started warm; `values` as `summarizeBenchmark`'s. */
export function coldWarmFigures(
  records: readonly SessionRecord[],
  phases: readonly Phase[],
  sessionStarts: readonly Start[],
  gapMs: number,
  values: readonly SessionValues[] = records.map((r) => sessionValues(r.timeline)),
): ColdWarm {
  const figures = (start: Start): StartFigures => {
    const group = records.filter((_, i) => phases[i] === 'measured' && sessionStarts[i] === start);
    const completedAt = indicesWhere(records, (r, i) => phases[i] === 'measured' && sessionStarts[i] === start && r.outcome.status === 'completed');
    // Without a completed session, no figures: not one null per metric of every task.
    const pooled = completedAt.length === 0 ? {} : pooledAt(completedAt, records, values);
    return {
      sessions: group.length,
      completed: completedAt.length,
      failed: group.filter((r) => r.outcome.status === 'failed').length,
      metrics: Object.fromEntries(Object.entries(pooled).map(([name, values]) => [name, summarize(values)])),
    };
  };
  return { gapMs, cold: figures('cold'), warm: figures('warm') };
}
