import type { SessionRecord, SessionTimeline } from '../timeline/types.js';
import { METRICS } from './catalog.js';
import { costOf, type Cost, type Pricing } from './cost.js';
import { evaluateSlos, type Slo, type SloResult } from './slo.js';
import { summarize, type Distribution } from './stats.js';
import { turnViews } from './turns.js';
import { errorRate, NORMALIZER, wordErrors } from './wer.js';
import { sessionEndMs, type Phase } from './window.js';

/** Scalar metric values of one session: session-scoped ones and one set per turn. */
export interface SessionMetrics {
  session: Record<string, number>;
  turns: Array<Record<string, number>>;
}

export function computeSessionMetrics(timeline: SessionTimeline): SessionMetrics {
  const session: Record<string, number> = {};
  for (const metric of METRICS) {
    if (metric.scope !== 'session') continue;
    const value = metric.value(timeline);
    if (value !== undefined) session[metric.name] = value;
  }
  const turns = turnViews(timeline).map((turn) => {
    const values: Record<string, number> = {};
    for (const metric of METRICS) {
      if (metric.scope !== 'turn') continue;
      const value = metric.value(turn);
      if (value !== undefined) values[metric.name] = value;
    }
    return values;
  });
  return { session, turns };
}

/** Every metric's values pooled over the given timelines: per session, per turn, or per sample. */
export function poolMetricValues(timelines: readonly SessionTimeline[]): Record<string, number[]> {
  const pooled: Record<string, number[]> = Object.fromEntries(METRICS.map((m) => [m.name, []]));
  for (const timeline of timelines) {
    const turns = turnViews(timeline);
    for (const metric of METRICS) {
      const values = pooled[metric.name]!;
      if (metric.scope === 'session') {
        const value = metric.value(timeline);
        if (value !== undefined) values.push(value);
      } else {
        for (const turn of turns) {
          if (metric.scope === 'turn') {
            const value = metric.value(turn);
            if (value !== undefined) values.push(value);
          } else {
            for (const value of metric.samples(turn)) values.push(value);
          }
        }
      }
    }
  }
  return pooled;
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
    normalizer: string;
    turns: number;
    /** Corpus WER; null when no turn had a reference and a final transcript. */
    wer: number | null;
    substitutions: number;
    deletions: number;
    insertions: number;
    referenceWords: number;
  };
  /** Distributions over measured completed sessions. */
  metrics: Record<string, Distribution | null>;
  slos: SloResult[];
  /** With a price: the deployment's cost over the measured interval, per audio hour. */
  cost?: Cost;
  throughput: {
    /** From the first measured session's start to the last one's end. */
    wallS: number;
    /** Audio of measured completed sessions. */
    audioS: number;
    audioSPerWallS: number;
    sessionsPerS: number;
  };
}

/** A benchmark's summary: counts over every session, figures over the measured ones. */
export function summarizeBenchmark(records: readonly SessionRecord[], phases: readonly Phase[], slos: readonly Slo[], pricing?: Pricing): BenchmarkSummary {
  const measured = records.filter((_, i) => phases[i] === 'measured');
  const completed = measured.filter((r) => r.outcome.status === 'completed');
  const failedCount = measured.filter((r) => r.outcome.status === 'failed').length;
  const pooled = poolMetricValues(completed.map((r) => r.timeline));
  const audioS = pooled.audio_ms!.reduce((sum, v) => sum + v, 0) / 1000;
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
    turns: summarizeTurns(completed.map((r) => r.timeline)),
    quality: corpusQuality(completed.map((r) => r.timeline)),
    metrics: Object.fromEntries(Object.entries(pooled).map(([name, values]) => [name, summarize(values)])),
    slos: evaluateSlos(slos, pooled, errorRate),
    ...(pricing ? { cost: costOf(pricing, wallS, audioS) } : {}),
    throughput: {
      wallS,
      audioS,
      audioSPerWallS: wallS > 0 ? audioS / wallS : 0,
      sessionsPerS: wallS > 0 ? completed.length / wallS : 0,
    },
  };
}

/**
 * From the first measured session's start to the last one's end; a resumed run adds
 * each run's own span, so the time between the runs does not count.
 */
function measuredSpanMs(records: readonly SessionRecord[]): number {
  const runs = new Map<string, { firstStartMs: number; lastEndMs: number }>();
  for (const r of records) {
    const key = r.resumedFrom ?? '';
    const run = runs.get(key) ?? { firstStartMs: Infinity, lastEndMs: -Infinity };
    run.firstStartMs = Math.min(run.firstStartMs, r.timeline.connectStartMs);
    run.lastEndMs = Math.max(run.lastEndMs, sessionEndMs(r.timeline));
    runs.set(key, run);
  }
  let total = 0;
  for (const run of runs.values()) total += run.lastEndMs - run.firstStartMs;
  return total;
}

function summarizeTurns(timelines: readonly SessionTimeline[]): BenchmarkSummary['turns'] {
  const eosSources: Record<string, number> = {};
  let planned = 0;
  let finalized = 0;
  for (const timeline of timelines) {
    for (const turn of turnViews(timeline)) {
      planned++;
      if (turn.final) finalized++;
      if (turn.plan) eosSources[turn.plan.eosSource] = (eosSources[turn.plan.eosSource] ?? 0) + 1;
    }
  }
  const detection = timelines[0]?.turnDetection;
  return { planned, finalized, boundaries: detection === undefined ? 'none' : detection === 'client' ? 'client commits' : 'server VAD', eosSources };
}

function corpusQuality(timelines: readonly SessionTimeline[]): BenchmarkSummary['quality'] {
  const total = { substitutions: 0, deletions: 0, insertions: 0, words: 0 };
  let turns = 0;
  for (const timeline of timelines) {
    for (const turn of turnViews(timeline)) {
      if (!turn.plan?.reference || turn.transcript === undefined) continue;
      const errors = wordErrors(turn.plan.reference, turn.transcript);
      turns++;
      total.substitutions += errors.substitutions;
      total.deletions += errors.deletions;
      total.insertions += errors.insertions;
      total.words += errors.words;
    }
  }
  const { words, ...edits } = total;
  return { normalizer: NORMALIZER, turns, wer: errorRate(total), ...edits, referenceWords: words };
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
