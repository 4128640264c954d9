import type { DelaySummary, EventLoopDelay } from '../runtime/delay.js';
import { profileLabel, type LoadProfile } from '../load/profiles.js';
import { coldWarmFigures, sessionValues, summarizeBenchmark } from '../metrics/compute.js';
import { judgeClient } from '../metrics/health.js';
import { parseSlo } from '../metrics/slo.js';
import { phases } from '../metrics/window.js';
import { DEFAULT_COLD_GAP_MS, starts } from '../metrics/cold-start.js';
import { normalizerFor, type NormalizerChoice } from '../metrics/normalizers/index.js';
import type { DiarizationRules, IncompleteReason, SessionRecord } from '../timeline/types.js';
import type { Benchmark, RunConfig } from './schema.js';

/** What a benchmark level measured, before any figure is computed from it. */
export interface Measured {
  /** The level's label when it is not its profile's own: a mixed merge's part, prefixed by its source. */
  label?: string;
  profile: LoadProfile;
  startMs: number;
  endMs: number;
  stoppedBy?: IncompleteReason;
  eventLoopDelay: EventLoopDelay;
  receiveDelay?: DelaySummary;
  capHits: number;
  records: SessionRecord[];
}

/** How figures are computed from timelines: the parts of the run config that define them. */
export type FigureSettings = Pick<RunConfig, 'window' | 'slos' | 'pricing' | 'normalizer' | 'diarization'>;

/**
 * A benchmark's figures, computed from its timelines with the current metric
 * definitions. The run does this as it goes; `report render` and `report merge` do it
 * again later from stored timelines. `activeUntilMs`: the end of the last session of the
 * run's earlier levels, so a level that follows another without an idle gap does not
 * start cold.
 */
export function buildBenchmark(measured: Measured, settings: FigureSettings, activeUntilMs?: number): Benchmark {
  const records = [...measured.records].sort((a, b) => a.index - b.index).map((r) => scoredWith(r, settings.normalizer, settings.diarization?.rules));
  const sessionPhases = phases(records, measured.startMs, measured.endMs, settings.window);
  const gapMs = settings.window.coldGapMs ?? DEFAULT_COLD_GAP_MS;
  const sessionStarts = starts(records, gapMs, activeUntilMs);
  // Each session measured once, for its stored metrics and every figure that pools them.
  const values = records.map((r) => sessionValues(r.timeline));
  const summary = {
    ...summarizeBenchmark(records, sessionPhases, settings.slos.map(parseSlo), settings.pricing ?? undefined, values),
    coldWarm: coldWarmFigures(records, sessionPhases, sessionStarts, gapMs, values),
  };
  return {
    label: measured.label ?? profileLabel(measured.profile),
    profile: measured.profile,
    startMs: measured.startMs,
    endMs: measured.endMs,
    ...(measured.stoppedBy ? { stoppedBy: measured.stoppedBy } : {}),
    clientHealth: judgeClient(summary, measured.eventLoopDelay, measured.capHits, measured.receiveDelay),
    summary,
    sessions: records.map((r, i) => ({ ...r, phase: sessionPhases[i]!, start: sessionStarts[i]!, metrics: values[i]!.metrics })),
  };
}

/** What a stored benchmark measured: the inverse of `buildBenchmark`, for recomputing. */
export function measuredOf(benchmark: Benchmark): Measured {
  return {
    ...(benchmark.label !== profileLabel(benchmark.profile) ? { label: benchmark.label } : {}),
    profile: benchmark.profile,
    startMs: benchmark.startMs,
    endMs: benchmark.endMs,
    ...(benchmark.stoppedBy ? { stoppedBy: benchmark.stoppedBy } : {}),
    eventLoopDelay: benchmark.clientHealth.eventLoopDelay,
    ...(benchmark.clientHealth.receiveDelay ? { receiveDelay: benchmark.clientHealth.receiveDelay } : {}),
    capHits: benchmark.clientHealth.capHits,
    records: benchmark.sessions.map(({ phase: _p, start: _s, metrics: _m, ...record }) => record),
  };
}

/**
 * The record with each audio input's normalizer set from the run's choice and the
 * input's language, so the report says what scored every input and `report render
 * --normalizer` can score them again. Without a choice (a report from before there was
 * one) inputs keep what they have. The diarization rules are set the same way on a
 * timeline with reference speaker turns to score against.
 */
function scoredWith(record: SessionRecord, choice: NormalizerChoice | undefined, rules: DiarizationRules | undefined): SessionRecord {
  const scoresSpeakers = rules !== undefined && record.timeline.inputs.some((input) => input.kind === 'audio' && input.turns !== undefined);
  if (choice === undefined && !scoresSpeakers) return record;
  const inputs =
    choice === undefined
      ? record.timeline.inputs
      : record.timeline.inputs.map((input) => (input.kind === 'audio' ? { ...input, normalizer: normalizerFor(choice, input.language) } : input));
  return { ...record, timeline: { ...record.timeline, inputs, ...(scoresSpeakers ? { diarizationRules: rules } : {}) } };
}
