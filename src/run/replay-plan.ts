import { audioSeconds } from '../audio/decode.js';
import type { RunOptions } from '../config/options.js';
import type { Settings } from '../config/settings.js';
import { option, optionsError } from '../config/errors.js';
import { DIALECTS } from '../dialects/index.js';
import type { LoadProfile } from '../load/profiles.js';
import { planReplay, replayLabel, type Candidate, type ReplayedSession, type ReplayOptions, type ReplaySkip, type SkipReason } from '../load/replay.js';
import type { ReplayConfig } from '../report/schema.js';
import type { RunDataset } from './run-context.js';

const seconds = (ms: number): string => (Number.isFinite(ms) ? `${Math.round(ms / 100) / 10}s` : 'end');

/** Skips by reason, e.g. `2 dialect, 1 gap`. */
function skipText(skips: readonly ReplaySkip[]): string {
  const counts = new Map<string, number>();
  for (const { reason } of skips) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).join(', ');
}

export interface RunReplay {
  profile: Extract<LoadProfile, { kind: 'replay' }>;
  /** What session i of the level sends. */
  sessions: ReplayedSession[];
  config: ReplayConfig;
}

/**
 * The replay a run plays: the shape's sessions in the window, each input matched to a
 * sample of the run's corpus, as one open-loop level. What cannot be played (another
 * task, no sample of its length, a recording with a gap) is named in the report's
 * config and counted, never dropped unsaid.
 */
export function replayOf(options: RunOptions, settings: Settings, dataset: RunDataset): RunReplay {
  const given = options.replay!;
  const REPLAY = option('replay');
  if (options.profile || options.sweep || options.capacity)
    throw optionsError`${REPLAY} is the load: it does not combine with a profile, a sweep or a capacity search`;
  if (settings.workers > 1) throw optionsError`${REPLAY} runs in one thread: leave out ${option('workers')}`;
  if (settings.shard) throw optionsError`${REPLAY} cannot be sharded yet: replay the whole shape, or a ${option('replay.window')} of it, per run`;
  const replayOptions: ReplayOptions = {
    speed: given.speed ?? 1,
    scale: given.scale ?? 1,
    seed: given.seed ?? 1,
    ...(given.window ? { window: given.window } : {}),
  };
  if (!(replayOptions.speed > 0)) throw optionsError`${option('replay.speed')} must be above 0, got ${replayOptions.speed}`;
  if (!(Number.isInteger(replayOptions.scale) && replayOptions.scale >= 1))
    throw optionsError`${option('replay.scale')} must be a whole number of sessions per recorded one, 1 or more, got ${replayOptions.scale}`;
  const candidates: Candidate[] = dataset.samples.map((s) =>
    s.kind === 'text'
      ? { id: s.id, size: [...s.text].length, ...(s.language ? { language: s.language } : {}) }
      : { id: s.id, size: audioSeconds(s.audio) * 1000, ...(s.language ? { language: s.language } : {}) },
  );
  const plan = planReplay(given.sessions, DIALECTS[settings.protocol], candidates, replayOptions);
  const where = `${given.file}${replayOptions.window ? ` in the window ${seconds(replayOptions.window.fromMs)}-${seconds(replayOptions.window.toMs)}` : ''}`;
  if (plan.recorded === 0)
    throw optionsError`${REPLAY} ${where} holds none of the shape's ${given.sessions.length} recorded sessions: choose a ${option('replay.window')} where sessions started`;
  if (plan.sessions.length === 0)
    throw optionsError`${REPLAY} ${where}: none of its ${plan.recorded} recorded sessions can be played (${skipText(plan.skipped)}); see docs/replay.md`;
  const skipped: Record<SkipReason, number> = { dialect: 0, unmatched: 0, gap: 0 };
  for (const skip of plan.skipped) skipped[skip.reason]++;
  const label = replayLabel(replayOptions);
  return {
    profile: { kind: 'replay', label, arrivals: plan.sessions.map((s) => s.startMs) },
    sessions: plan.sessions,
    config: {
      file: given.file,
      source: given.header.source,
      speed: replayOptions.speed,
      scale: replayOptions.scale,
      seed: replayOptions.seed,
      window: replayOptions.window
        ? { fromMs: replayOptions.window.fromMs, toMs: Number.isFinite(replayOptions.window.toMs) ? replayOptions.window.toMs : null }
        : null,
      recorded: plan.recorded,
      played: plan.sessions.length,
      skipped,
      skippedSessions: plan.skipped,
      plays: plan.sessions.map(({ session, copy, sampleIds }) => ({ session, copy, sampleIds })),
      ...(given.header.recorded ? { recordedFigures: given.header.recorded } : {}),
    },
  };
}
