import type { DelaySummary, EventLoopDelay } from '../runtime/delay.js';
import { profileLabel, type LoadProfile } from '../load/profiles.js';
import { sessionFigures, summarizeLevel, type SessionMetrics } from '../metrics/compute.js';
import { judgeClient } from '../metrics/health.js';
import { parseSlo } from '../metrics/slo.js';
import { phases } from '../metrics/window.js';
import { DEFAULT_COLD_GAP_MS, starts } from '../metrics/cold-start.js';
import { normalizerFor, type NormalizerChoice } from '../metrics/normalizers/index.js';
import type { DiarizationRules, IncompleteReason, SessionRecord } from '../timeline/types.js';
import type { Benchmark, HeldSession, ReportSession, RunConfig } from './schema.js';
import { ReportError } from './report-error.js';
import { sessionFacts } from './session-facts.js';
import type { LogPlace } from './session-log.js';
import { forgetView } from '../views/session-view.js';

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
  /** Its sessions: records, or sessions digested already (`digest`) whose timelines need not be held. */
  records: Array<SessionRecord | DigestedSession>;
}

/** A session reduced to what its level's figures and outputs need; its timeline kept only where still wanted. */
export type DigestedSession = Omit<ReportSession, 'phase' | 'start' | 'metrics'>;

/**
 * A session's figures and facts, taken from its timeline once: scored with the run's
 * normalizer and diarization rules. The timeline is kept with `keepTimeline`, else
 * dropped (the report reads it back from `logAt` where a chart draws it).
 */
export function digest(
  record: SessionRecord,
  settings: Pick<FigureSettings, 'normalizer' | 'diarization'>,
  keepTimeline: boolean,
  logAt?: LogPlace,
): DigestedSession {
  const scored = scoredWith(record, settings.normalizer, settings.diarization?.rules);
  const { timeline, ...rest } = scored;
  const digested = {
    ...rest,
    ...(timeline.analysis ? { analysis: timeline.analysis } : {}),
    ...(keepTimeline ? { timeline } : {}),
    figures: sessionFigures(timeline),
    facts: sessionFacts(scored),
    ...(logAt ? { logAt } : {}),
  };
  if (!keepTimeline) forgetView(timeline);
  return digested;
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
  const sessions = [...measured.records].sort((a, b) => a.index - b.index).map((r) => ('figures' in r ? r : digest(heldTimeline(r), settings, true)));
  const sessionPhases = phases(sessions, measured.startMs, measured.endMs, settings.window);
  const gapMs = settings.window.coldGapMs ?? DEFAULT_COLD_GAP_MS;
  const sessionStarts = starts(sessions, gapMs, activeUntilMs);
  // Each session measured once (its figures), for its stored metrics and every figure that pools them.
  const summary = summarizeLevel(sessions, sessionPhases, sessionStarts, gapMs, settings.slos.map(parseSlo), settings.pricing ?? undefined);
  return {
    label: measured.label ?? profileLabel(measured.profile),
    profile: measured.profile,
    startMs: measured.startMs,
    endMs: measured.endMs,
    ...(measured.stoppedBy ? { stoppedBy: measured.stoppedBy } : {}),
    clientHealth: judgeClient(summary, measured.eventLoopDelay, measured.capHits, measured.receiveDelay),
    summary,
    sessions: sessions.map((s, i) => ({ ...s, phase: sessionPhases[i]!, start: sessionStarts[i]!, metrics: storedOrRows(s) })),
  };
}

/**
 * A session's metric values as its report keeps them: where the report holds the
 * timelines too (a run's own, a merge), the rows as plain objects, which its callers may
 * copy and change; a report rendered from the session log keeps them where they lie in
 * the shared store, its largest part otherwise (issue 38).
 */
function storedOrRows(session: DigestedSession): SessionMetrics {
  const { metrics } = session.figures.values;
  return session.timeline !== undefined ? metrics.toJSON() : metrics;
}

/** `buildBenchmark` of records, whose sessions so keep their timelines (a run's, the proxy's). */
export function buildHeldBenchmark(
  measured: Measured & { records: SessionRecord[] },
  settings: FigureSettings,
  activeUntilMs?: number,
): Benchmark<HeldSession> {
  return buildBenchmark(measured, settings, activeUntilMs) as Benchmark<HeldSession>;
}

/**
 * What a stored benchmark measured: the inverse of `buildBenchmark`, for recomputing.
 * A session whose timeline is held is measured again from it (a new normalizer applies);
 * one without keeps the figures taken when it was read.
 */
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
    records: benchmark.sessions.map(({ phase: _p, start: _s, metrics: _m, ...session }) => recordOf(session)),
  };
}

/** A session as a record where its timeline is held, else as digested. */
function recordOf(session: DigestedSession): SessionRecord | DigestedSession {
  const { timeline, analysis: _a, figures: _f, facts: _x, logAt: _l, ...rest } = session;
  return timeline ? { ...rest, timeline } : session;
}

/** The record, checked to hold its timeline: a session parsed from a version 3 `report.json` has it in the session log only. */
function heldTimeline(record: SessionRecord): SessionRecord {
  if ((record.timeline as SessionRecord['timeline'] | undefined) === undefined)
    throw new ReportError(`session ${record.index} has no timeline to measure: a version 3 report keeps them in its session log; read it with readReport`);
  return record;
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
