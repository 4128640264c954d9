import type { EosSource, SessionOutcome, SessionRecord, SessionTimeline, Task } from '../timeline/types.js';
import { isSpeechTask, sessionEndMs } from '../timeline/types.js';
import { sessionView, type InputView, type ResponseView, type SessionView } from '../views/session-view.js';
import { measure, METRICS, metricsOfScope, type MetricDefinition, type PointMetric, type Scope } from './catalog.js';
import { costOf, type Cost, type Pricing } from './cost.js';
import type { Interval } from './bootstrap.js';
import { corpusSpeakersOf, sessionSpeakers, type CorpusSpeakers, type InputSpeakers } from './diarization/session.js';
import { LEGACY_NORMALIZER } from './normalizers/index.js';
import { corpusWerInterval, normalizerList, pooledErrors, qualityBy, scoredInputs, type GroupQuality, type ScoredInput } from './quality.js';
import { eachSamples, storeSamples, type StoredSamples } from './sample-store.js';
import { sortNumbers } from '../util/sort-numbers.js';
import {
  eachLayoutName,
  eachMetricValue,
  storedPlace,
  storeMetrics,
  type Layout,
  type MetricRow,
  type SessionMetrics,
  type StoredMetrics,
} from './stored-metrics.js';
import { evaluateSlos, type Slo, type SloResult } from './slo.js';
import { mergeSorted, summarize, summarizeSorted, type Distribution } from './stats.js';
import { errorRate } from './wer.js';
import type { Phase } from './window.js';
import type { Start } from './cold-start.js';

export type { SessionMetrics } from './stored-metrics.js';

/** Each metric of `scope` and `task` with a value on `view`, by name. */
function valuesOn(scope: PointMetric['scope'], task: Task | undefined, view: InputView | ResponseView | SessionView): Record<string, number> {
  const { names, values } = rowOn(scope, task, view);
  return Object.fromEntries(names.map((name, i) => [name, values[i]!]));
}

function metricsOn(view: SessionView, task: Task | undefined): SessionMetrics {
  return {
    session: valuesOn('session', task, view),
    inputs: view.inputs.map((input) => valuesOn('input', task, input)),
    responses: view.responses.map((response) => valuesOn('response', task, response)),
  };
}

/** Each metric of `scope` and `task` with a value on `view`: their names, and their values in the same order. */
function rowOn(scope: PointMetric['scope'], task: Task | undefined, view: InputView | ResponseView | SessionView): MetricRow {
  const row: MetricRow = { names: [], values: [] };
  for (const metric of metricsOfScope(scope, task)) {
    const value = measure(metric, view);
    if (value !== undefined) {
      row.names.push(metric.name);
      row.values.push(value);
    }
  }
  return row;
}

export function computeSessionMetrics(timeline: SessionTimeline): SessionMetrics {
  return metricsOn(sessionView(timeline), timeline.task);
}

/** One session's values of every metric of a task: the scalars a report stores on it, and the samples of each input, joined (in a shared store). */
export interface SessionValues {
  metrics: StoredMetrics;
  samples: StoredSamples;
}

/**
 * The values of every metric of `task` (the timeline's own by default; every metric when
 * undefined) on one session, measured once for every figure that pools them: the
 * summary, the cold and warm figures and the session's own stored metrics.
 */
export function sessionValues(timeline: SessionTimeline, task: Task | undefined = timeline.task): SessionValues {
  const view = sessionView(timeline);
  const metrics = metricsOfScope('input_samples', task);
  const lists = metrics.map((metric) => (view.inputs.length === 1 ? metric.samples(view.inputs[0]!) : view.inputs.flatMap((input) => metric.samples(input))));
  const stored = storeMetrics(
    rowOn('session', task, view),
    view.inputs.map((input) => rowOn('input', task, input)),
    view.responses.map((response) => rowOn('response', task, response)),
  );
  return { metrics: stored, samples: storeSamples(namesOf(metrics), lists) };
}

/** The names of a list of metrics, one array per list (the catalog's lists by scope and task are kept until it changes). */
function namesOf(metrics: ReadonlyArray<{ name: string }>): readonly string[] {
  let names = metricNames.get(metrics);
  if (!names) {
    names = metrics.map((m) => m.name);
    metricNames.set(metrics, names);
  }
  return names;
}
const metricNames = new WeakMap<object, readonly string[]>();

/**
 * The values of every metric of `task` (every metric, when undefined), pooled over the
 * sessions' values: per session, per input, per response, or per sample, in session order.
 * With `only`, just the metrics it names.
 */
export function poolValues(sessions: readonly SessionValues[], task: Task | undefined, only?: ReadonlySet<string>): Record<string, number[]> {
  const pool = poolOf(task, only);
  const lists = pool.names.map((): number[] => []);
  eachPooled(sessions, pool, (slot, value) => lists[slot]!.push(value));
  return Object.fromEntries(pool.names.map((name, slot) => [name, lists[slot]!]));
}

/**
 * `poolValues`' finite values, each metric's one `Float64Array` of its size, in its
 * order: counted in a first pass and put in place in a second, so no list grows a value
 * at a time and none is copied to be sorted (a level's samples are millions at 100,000
 * sessions, issue 38).
 */
function finiteColumns(sessions: readonly SessionValues[], task: Task | undefined): Array<[string, Float64Array]> {
  const pool = poolOf(task);
  const counts = new Int32Array(pool.names.length);
  eachPooled(sessions, pool, (slot, value) => {
    if (Number.isFinite(value)) counts[slot]!++;
  });
  const columns = pool.names.map((_, slot) => new Float64Array(counts[slot]!));
  counts.fill(0);
  eachPooled(sessions, pool, (slot, value) => {
    if (Number.isFinite(value)) columns[slot]![counts[slot]!++] = value;
  });
  return pool.names.map((name, slot) => [name, columns[slot]!]);
}

/** What a pool holds: its metrics in catalog order (the summary's order), and each one's place there by name, in the part of a session's values its scope fills. */
interface Pool {
  names: string[];
  session: Map<string, number>;
  input: Map<string, number>;
  response: Map<string, number>;
  samples: Map<string, number>;
}

/** The pool of every metric of `task` (every metric, when undefined) of a pooled scope, or of those `only` names. */
function poolOf(task: Task | undefined, only?: ReadonlySet<string>): Pool {
  const pool: Pool = { names: [], session: new Map(), input: new Map(), response: new Map(), samples: new Map() };
  const byScope = new Map<Scope, Map<string, number>>([
    ['session', pool.session],
    ['input', pool.input],
    ['response', pool.response],
    ['input_samples', pool.samples],
  ]);
  const kept = new Set<MetricDefinition>();
  for (const scope of byScope.keys()) for (const metric of metricsOfScope(scope, task)) if (!only || only.has(metric.name)) kept.add(metric);
  for (const metric of METRICS) {
    if (!kept.has(metric)) continue;
    byScope.get(metric.scope)!.set(metric.name, pool.names.length);
    pool.names.push(metric.name);
  }
  return pool;
}

/**
 * Each value the pool holds, session by session, to `visit` with its metric's place in
 * `pool.names`. Sessions alike share a layout: where each of its values goes is worked
 * out once per layout, not looked up by name per value (millions at 100,000 sessions).
 */
function eachPooled(sessions: readonly SessionValues[], pool: Pool, visit: (slot: number, value: number) => void): void {
  const slots = { session: pool.session, input: pool.input, response: pool.response };
  const layoutSlots = new Map<Layout, Int32Array>();
  for (const { metrics, samples } of sessions) {
    const place = storedPlace(metrics);
    if (place) {
      let into = layoutSlots.get(place.layout);
      if (into === undefined) {
        const found: number[] = [];
        eachLayoutName(place.layout, (row, name) => found.push(slots[row].get(name) ?? -1));
        into = Int32Array.from(found);
        layoutSlots.set(place.layout, into);
      }
      const { chunk, at } = place;
      for (let k = 0; k < into.length; k++) if (into[k]! >= 0) visit(into[k]!, chunk[at + k]!);
    } else {
      eachMetricValue(metrics, (row, name, value) => {
        const slot = slots[row].get(name);
        if (slot !== undefined) visit(slot, value);
      });
    }
    eachSamples(samples, (name, chunk, from, to) => {
      const slot = pool.samples.get(name);
      if (slot !== undefined) for (let k = from; k < to; k++) visit(slot, chunk[k]!);
    });
  }
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
  return corpusOf(views.map(corpusParts));
}

/** The corpus metrics from each session's parts (`corpusParts`), by name. */
function corpusOf(parts: ReadonlyArray<Record<string, unknown>>): Record<string, number | null> {
  const values: Record<string, number | null> = {};
  for (const m of metricsOfScope('corpus', undefined)) values[m.name] = m.reduce(parts.map((p) => p[m.name]));
  return values;
}

/** What each corpus metric needs of one session, by name. */
function corpusParts(view: SessionView): Record<string, unknown> {
  const parts: Record<string, unknown> = {};
  for (const m of metricsOfScope('corpus', undefined)) parts[m.name] = m.part(view);
  return parts;
}

/**
 * Everything the figures of a benchmark need of one session, taken while its timeline
 * is at hand: its times, its metric values, each corpus metric's part, its turns, its
 * scored inputs, anomalies and speakers. A report renders one session at a time from
 * the session log and keeps only these (issue 38): the timeline is dropped.
 */
export interface SessionFigures {
  task: Task;
  turnDetection: SessionTimeline['turnDetection'];
  startMs: number;
  plannedStartMs: number;
  endMs: number;
  values: SessionValues;
  corpus: Record<string, unknown>;
  turns: { planned: number; finalized: number; eosSources: EosSource[] };
  scored: ScoredInput[];
  /** Every audio input's normalizer, scored or not. */
  normalizers: string[];
  anomalies: string[];
  speakers: InputSpeakers[];
}

/** One empty list for every session that has none: a report keeps each session's figures until its level is summarized. */
const NONE: string[] = [];

/**
 * One copy of a figure many sessions have alike (their turn counts, their normalizers),
 * by its key, for the same reason; up to SHARED distinct ones, the rest each their own.
 * Never changed once made.
 */
function shared<T>(key: string, make: () => T): T {
  let value = sharedValues.get(key) as T | undefined;
  if (value === undefined) {
    value = make();
    if (sharedValues.size < SHARED) sharedValues.set(key, value);
  }
  return value;
}
const sharedValues = new Map<string, unknown>();
const SHARED = 10_000;

const sharedList = (list: string[]): string[] => (list.length === 0 ? NONE : shared(`list:${list.join('\u0000')}`, () => list));

export function sessionFigures(timeline: SessionTimeline): SessionFigures {
  const view = sessionView(timeline);
  const eosSources: EosSource[] = [];
  let finalized = 0;
  for (const input of view.inputs) {
    if (input.transcript.final) finalized++;
    if (input.plan?.kind === 'audio') eosSources.push(input.plan.eosSource);
  }
  return {
    task: timeline.task,
    turnDetection: timeline.turnDetection,
    startMs: timeline.startMs,
    plannedStartMs: timeline.plannedStartMs,
    endMs: sessionEndMs(timeline),
    values: sessionValues(timeline),
    corpus: corpusParts(view),
    turns: shared(`${view.inputs.length}|${finalized}|${eosSources.join(',')}`, () => ({ planned: view.inputs.length, finalized, eosSources })),
    scored: scoredInputs([view]),
    normalizers: sharedList(view.inputs.flatMap((i) => (i.plan?.kind === 'audio' ? [i.plan.normalizer ?? LEGACY_NORMALIZER] : []))),
    anomalies: sharedList(view.anomalies.map((a) => a.reason)),
    speakers: sessionSpeakers(view),
  };
}

/** A session as its figures see it: its outcome and its `SessionFigures`, its timeline no longer needed. */
export interface FiguredSession {
  index: number;
  outcome: SessionOutcome;
  resumedFrom?: string;
  figures: SessionFigures;
}

/** A record with its figures taken. */
export function figured(record: SessionRecord): FiguredSession {
  return {
    index: record.index,
    outcome: record.outcome,
    ...(record.resumedFrom !== undefined ? { resumedFrom: record.resumedFrom } : {}),
    figures: sessionFigures(record.timeline),
  };
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
 * The values of the sessions at `indices` pooled as `poolMetricValues` pools their
 * timelines, from each session's values, measured once with its own task. (A level
 * whose sessions ran different tasks pools each session's values of the first one's
 * metrics.)
 */
function pooledAt(indices: readonly number[], sessions: readonly FiguredSession[], only?: ReadonlySet<string>): Record<string, number[]> {
  return poolValues(
    indices.map((i) => sessions[i]!.figures.values),
    taskAt(indices, sessions),
    only,
  );
}

/** The task whose metrics the sessions at `indices` pool: the first one's. */
function taskAt(indices: readonly number[], sessions: readonly FiguredSession[]): Task | undefined {
  return indices.length > 0 ? sessions[indices[0]!]!.figures.task : undefined;
}

/** Each metric's distribution over its pooled values. */
function distributions(pooled: Record<string, readonly number[]>): Record<string, Distribution | null> {
  return Object.fromEntries(Object.entries(pooled).map(([name, values]) => [name, summarize(values)]));
}

/** Indices of the sessions that `keep` keeps. */
function indicesWhere<T>(sessions: readonly T[], keep: (session: T, i: number) => boolean): number[] {
  const indices: number[] = [];
  sessions.forEach((session, i) => {
    if (keep(session, i)) indices.push(i);
  });
  return indices;
}

/** A benchmark's summary: counts over every session, figures over the measured ones. */
export function summarizeBenchmark(records: readonly SessionRecord[], phases: readonly Phase[], slos: readonly Slo[], pricing?: Pricing): BenchmarkSummary {
  return summarizeFigured(records.map(figured), phases, slos, pricing);
}

/** `summarizeBenchmark` of sessions whose figures are taken already. */
export function summarizeFigured(
  sessions: readonly FiguredSession[],
  phases: readonly Phase[],
  slos: readonly Slo[],
  pricing?: Pricing,
  distributed?: Record<string, Distribution | null>,
): BenchmarkSummary {
  const measured = sessions.filter((_, i) => phases[i] === 'measured');
  const completedAt = indicesWhere(sessions, (r, i) => phases[i] === 'measured' && r.outcome.status === 'completed');
  const completed = completedAt.map((i) => sessions[i]!.figures);
  const failedCount = measured.filter((r) => r.outcome.status === 'failed').length;
  // With the distributions given, only what is summed and what the SLOs judge is pooled, in session order as ever.
  const pooled = pooledAt(
    completedAt,
    sessions,
    distributed && new Set(['audio_ms', 'audio_out_ms', 'chars', ...slos.flatMap((s) => ('metric' in s.aggregate ? [s.aggregate.metric] : []))]),
  );
  // Audio processed: streamed in for transcription, generated for speech generation.
  const speech = isSpeechTask(sessions[0]?.figures.task);
  const audioS = ((speech ? pooled.audio_out_ms : pooled.audio_ms) ?? []).reduce((sum, v) => sum + v, 0) / 1000;
  const chars = speech ? (pooled.chars ?? []).reduce((sum, v) => sum + v, 0) : undefined;
  const wallS = measuredSpanMs(measured) / 1000;
  const finished = completed.length + failedCount;
  const errorRate = finished > 0 ? failedCount / finished : null;
  const count = (status: string) => sessions.filter((r) => r.outcome.status === status).length;
  const diarization = corpusSpeakersOf(completed.flatMap((f) => f.speakers));
  return {
    sessions: { total: sessions.length, completed: count('completed'), failed: count('failed'), incomplete: count('incomplete') },
    excluded: { warmup: phases.filter((p) => p === 'warmup').length, cooldown: phases.filter((p) => p === 'cooldown').length },
    errorRate,
    failures: countFailures(sessions),
    incomplete: countIncomplete(sessions),
    turns: summarizeTurns(completed),
    quality: corpusQuality(completed),
    anomalies: countAnomalies(measured),
    metrics: distributed ?? distributions(pooled),
    corpus: corpusOf(completed.map((f) => f.corpus)),
    ...(diarization ? { diarization } : {}),
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

/**
 * From the first measured session's start to the last one's end, per run: a resumed
 * run, or a merge of runs, counts the union of each run's own span, so the time between
 * sequential runs does not count and runs measured at once (shards) count once.
 */
function measuredSpanMs(sessions: readonly FiguredSession[]): number {
  const runs = new Map<string, { firstStartMs: number; lastEndMs: number }>();
  for (const r of sessions) {
    const key = r.resumedFrom ?? '';
    const run = runs.get(key) ?? { firstStartMs: Infinity, lastEndMs: -Infinity };
    run.firstStartMs = Math.min(run.firstStartMs, r.figures.startMs);
    run.lastEndMs = Math.max(run.lastEndMs, r.figures.endMs);
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

function summarizeTurns(sessions: readonly SessionFigures[]): BenchmarkSummary['turns'] {
  const eosSources: Record<string, number> = {};
  let planned = 0;
  let finalized = 0;
  for (const { turns } of sessions) {
    planned += turns.planned;
    finalized += turns.finalized;
    for (const source of turns.eosSources) eosSources[source] = (eosSources[source] ?? 0) + 1;
  }
  const detection = sessions[0]?.turnDetection;
  return { planned, finalized, boundaries: detection === undefined ? 'none' : detection === 'client' ? 'client commits' : 'server VAD', eosSources };
}

function countAnomalies(sessions: readonly FiguredSession[]): BenchmarkSummary['anomalies'] {
  const reasons: Record<string, number> = {};
  let count = 0;
  for (const { figures } of sessions) {
    if (figures.anomalies.length > 0) count++;
    for (const reason of figures.anomalies) reasons[reason] = (reasons[reason] ?? 0) + 1;
  }
  return { sessions: count, reasons };
}

function corpusQuality(sessions: readonly SessionFigures[]): BenchmarkSummary['quality'] {
  const scored = sessions.flatMap((f) => f.scored);
  const { words, chars } = pooledErrors(scored);
  // Every audio input's, scored or not, so a run without references still names its normalizer.
  const recorded = sessions.flatMap((f) => f.normalizers);
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

function countFailures(records: readonly FiguredSession[]): FailureCount[] {
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

function countIncomplete(records: readonly FiguredSession[]): Array<{ reason: string; stage: string; count: number }> {
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

/** The figures of the measured sessions that started cold, and of those that started warm. */
export function coldWarmFigures(sessions: readonly FiguredSession[], phases: readonly Phase[], sessionStarts: readonly Start[], gapMs: number): ColdWarm {
  const figures = (start: Start): StartFigures => {
    const completedAt = completedStarting(start, sessions, phases, sessionStarts);
    // Without a completed session, no figures: not one null per metric of every task.
    return startFigures(start, sessions, phases, sessionStarts, completedAt.length === 0 ? {} : distributions(pooledAt(completedAt, sessions)));
  };
  return { gapMs, cold: figures('cold'), warm: figures('warm') };
}

function completedStarting(start: Start, sessions: readonly FiguredSession[], phases: readonly Phase[], sessionStarts: readonly Start[]): number[] {
  return indicesWhere(sessions, (r, i) => phases[i] === 'measured' && sessionStarts[i] === start && r.outcome.status === 'completed');
}

function startFigures(
  start: Start,
  sessions: readonly FiguredSession[],
  phases: readonly Phase[],
  sessionStarts: readonly Start[],
  metrics: Record<string, Distribution | null>,
): StartFigures {
  const group = sessions.filter((_, i) => phases[i] === 'measured' && sessionStarts[i] === start);
  return {
    sessions: group.length,
    completed: group.filter((r) => r.outcome.status === 'completed').length,
    failed: group.filter((r) => r.outcome.status === 'failed').length,
    metrics,
  };
}

/**
 * `summarizeFigured` with its `coldWarmFigures`, each value pooled and sorted once
 * (issue 38): the cold and the warm sessions' values are pooled and sorted apart, and
 * the level's distributions are their sorted values merged, which are the values of
 * every measured completed session sorted, since each started one way or the other.
 * Where the two groups' first sessions ran tasks other than the level's first one (so
 * each pools other metrics), they are pooled as `coldWarmFigures` pools them.
 */
export function summarizeLevel(
  sessions: readonly FiguredSession[],
  phases: readonly Phase[],
  sessionStarts: readonly Start[],
  gapMs: number,
  slos: readonly Slo[],
  pricing?: Pricing,
): BenchmarkSummary & { coldWarm: ColdWarm } {
  const groups = (['cold', 'warm'] as const).map((start) => completedStarting(start, sessions, phases, sessionStarts));
  const first = Math.min(...groups.map((g) => g[0] ?? Infinity));
  const task = sessions[first]?.figures.task;
  if (task === undefined || groups.some((g) => g.length > 0 && taskAt(g, sessions) !== task)) {
    return { ...summarizeFigured(sessions, phases, slos, pricing), coldWarm: coldWarmFigures(sessions, phases, sessionStarts, gapMs) };
  }
  const [cold, warm] = groups.map((g) =>
    g.length === 0
      ? undefined
      : finiteColumns(
          g.map((i) => sessions[i]!.figures.values),
          task,
        ),
  );
  const metrics: Record<string, Distribution | null> = {};
  const byStart: [Record<string, Distribution | null>, Record<string, Distribution | null>] = [{}, {}];
  // Both groups' columns name the same metrics in the same order when both have sessions: those of the one task.
  (cold ?? warm)!.forEach(([name], i) => {
    const [c, w] = [cold?.[i]![1], warm?.[i]![1]].map((column) => column && sortNumbers(column));
    if (c) byStart[0][name] = summarizeSorted(c);
    if (w) byStart[1][name] = summarizeSorted(w);
    metrics[name] = summarizeSorted(c && w ? mergeSorted(c, w) : (c ?? w)!);
  });
  return {
    ...summarizeFigured(sessions, phases, slos, pricing, metrics),
    coldWarm: {
      gapMs,
      cold: startFigures('cold', sessions, phases, sessionStarts, byStart[0]),
      warm: startFigures('warm', sessions, phases, sessionStarts, byStart[1]),
    },
  };
}
