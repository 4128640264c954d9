import { audioSeconds } from '../audio/decode.js';
import type { RunOptions } from '../config/options.js';
import type { Settings } from '../config/settings.js';
import { option, optionsError } from '../config/errors.js';
import { DIALECTS } from '../dialects/index.js';
import type { LoadProfile } from '../load/profiles.js';
import { planReplay, replayLabel, type Candidate, type ReplayedSession, type ReplayOptions, type ReplaySkip, type SkipReason } from '../load/replay.js';
import type { RecordedFigures, ShapeSession } from '../load/traffic-shape.js';
import { summarize } from '../metrics/stats.js';
import type { ReplayConfig, ReplayLevel } from '../report/schema.js';
import type { RunDataset } from './run-context.js';

type ReplayProfile = Extract<LoadProfile, { kind: 'replay' }>;

export interface RunReplay {
  /** One level per window (one for the whole recording without). */
  levels: ReplayProfile[];
  /** What each session of the run sends, by index: a level's sessions are `first` onwards. */
  sessions: ReplayedSession[];
  config: ReplayConfig;
}

const seconds = (ms: number): string => (Number.isFinite(ms) ? `${Math.round(ms / 100) / 10}s` : 'end');

const skipCounts = (skips: readonly ReplaySkip[]): Record<SkipReason, number> => {
  const counts: Record<SkipReason, number> = { dialect: 0, unmatched: 0, gap: 0 };
  for (const { reason } of skips) counts[reason]++;
  return counts;
};

/**
 * The recorded figures of the sessions a level plays: each metric's p50 and p95 over their
 * values as recorded, so a window's replay is set beside the same sessions' recording.
 * A shape whose sessions carry no figures (extracted before they did) gives the whole
 * recording's from its header.
 */
function windowFigures(sessions: readonly ShapeSession[], whole: RecordedFigures | undefined): ReplayLevel['figures'] {
  if (!sessions.some((s) => s.figures)) return whole ? { ...whole, of: 'recording' } : null;
  const pooled: Record<string, number[]> = {};
  for (const s of sessions) for (const [name, values] of Object.entries(s.figures ?? {})) (pooled[name] ??= []).push(...values);
  const finished = sessions.filter((s) => s.outcome !== 'incomplete');
  const metrics = Object.fromEntries(
    Object.entries(pooled).flatMap(([name, values]) => {
      const d = summarize(values);
      return d ? [[name, { p50: d.p50, p95: d.p95, count: d.count }]] : [];
    }),
  );
  return {
    of: 'window',
    sessions: sessions.length,
    errorRate: finished.length > 0 ? finished.filter((s) => s.outcome === 'failed').length / finished.length : null,
    metrics,
  };
}

/** Skips by reason, e.g. `2 dialect, 1 gap`. */
function skipText(skips: readonly ReplaySkip[]): string {
  const counts = new Map<string, number>();
  for (const { reason } of skips) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).join(', ');
}

/**
 * The replay a run plays (planned alike in every --workers thread and every --shard, from the same shape, corpus and seed): the shape's sessions in each window (a level each), each input
 * matched to a sample of the run's corpus. What cannot be played (another task, no sample
 * of its length, a recording with a gap) is named in the report's config and counted,
 * never dropped unsaid.
 */
export function replayOf(options: RunOptions, settings: Settings, dataset: RunDataset): RunReplay {
  const given = options.replay!;
  const REPLAY = option('replay');
  if (options.profile || options.sweep || options.capacity)
    throw optionsError`${REPLAY} is the load: it does not combine with a profile, a sweep or a capacity search`;
  const base: ReplayOptions = { speed: given.speed ?? 1, scale: given.scale ?? 1, seed: given.seed ?? 1 };
  if (!(base.speed > 0)) throw optionsError`${option('replay.speed')} must be above 0, got ${base.speed}`;
  if (!(Number.isInteger(base.scale) && base.scale >= 1))
    throw optionsError`${option('replay.scale')} must be a whole number of sessions per recorded one, 1 or more, got ${base.scale}`;
  const candidates: Candidate[] = dataset.samples.map((s) =>
    s.kind === 'text'
      ? { id: s.id, size: [...s.text].length, ...(s.language ? { language: s.language } : {}) }
      : { id: s.id, size: audioSeconds(s.audio) * 1000, ...(s.language ? { language: s.language } : {}) },
  );
  const windows = given.windows && given.windows.length > 0 ? given.windows : [undefined];
  const levels: ReplayProfile[] = [];
  const sessions: ReplayedSession[] = [];
  const plays: ReplayConfig['plays'] = [];
  const skippedSessions: ReplayConfig['skippedSessions'] = [];
  const replayLevels: ReplayLevel[] = [];
  let recorded = 0;
  for (const window of windows) {
    const replayOptions: ReplayOptions = { ...base, ...(window ? { window } : {}) };
    const plan = planReplay(given.sessions, DIALECTS[settings.protocol], candidates, replayOptions);
    const where = `${given.file}${window ? ` in the window ${seconds(window.fromMs)}-${seconds(window.toMs)}` : ''}`;
    if (plan.recorded.length === 0)
      throw optionsError`${REPLAY} ${where} holds none of the shape's ${given.sessions.length} recorded sessions: choose a ${option('replay.window')} where sessions started`;
    if (plan.sessions.length === 0)
      throw optionsError`${REPLAY} ${where}: none of its ${plan.recorded.length} recorded sessions can be played (${skipText(plan.skipped)}); see docs/replay.md`;
    const label = replayLabel(replayOptions);
    levels.push({ kind: 'replay', label, first: sessions.length, arrivals: plan.sessions.map((s) => s.startMs) });
    sessions.push(...plan.sessions);
    plays.push(...plan.sessions.map(({ session, copy, sampleIds }) => ({ level: label, session, copy, sampleIds })));
    skippedSessions.push(...plan.skipped.map((skip) => ({ level: label, ...skip })));
    recorded += plan.recorded.length;
    const played = new Set(plan.sessions.map((s) => s.session));
    replayLevels.push({
      label,
      recorded: plan.recorded.length,
      played: plan.sessions.length,
      skipped: skipCounts(plan.skipped),
      figures: windowFigures(
        plan.recorded.filter((s) => played.has(s.session)),
        given.header.recorded?.[DIALECTS[settings.protocol]],
      ),
    });
  }
  return {
    levels,
    sessions,
    config: {
      file: given.file,
      source: given.header.source,
      speed: base.speed,
      scale: base.scale,
      seed: base.seed,
      windows: given.windows?.map((w) => ({ fromMs: w.fromMs, toMs: Number.isFinite(w.toMs) ? w.toMs : null })) ?? null,
      recorded,
      played: sessions.length,
      skipped: skipCounts(skippedSessions),
      skippedSessions,
      plays,
      levels: replayLevels,
    },
  };
}
