import type { LoadPlan } from '../load/plan.js';
import { isOpenLoop, isStaged, type StagedProfile } from '../load/profiles.js';
import { peakTarget } from '../load/stages.js';
import type { MeasurementWindow } from '../metrics/window.js';
import { nonNegative, positive, timerLimit } from './checks.js';
import { option, optionsError } from './errors.js';
import type { RunOptions } from './options.js';

/** The load: one profile, a sweep or a capacity search, checked into a `LoadPlan`; and the limits and stops of each benchmark. */

const SWEEP = option('sweep');
const CAPACITY = option('capacity');

export function resolvePlan(options: RunOptions): LoadPlan {
  const given = [options.profile, options.sweep, options.capacity].filter((x) => x !== undefined).length;
  if (given > 1) throw optionsError`choose one of a profile, a sweep (${SWEEP}) or a capacity search (${CAPACITY})`;
  if (options.sweep) {
    if (options.sweep.length === 0) throw optionsError`${SWEEP} needs ${option('a list of levels', 'sweep.levels')}, e.g. 1,2,4,8`;
    for (const level of options.sweep) positive(option('each sweep level', 'sweep.level'), level, true);
    return { kind: 'sweep', levels: options.sweep };
  }
  if (options.capacity) {
    const { by } = options.capacity;
    const integer = by === 'concurrency';
    const search = {
      start: options.capacity.start ?? 1,
      max: options.capacity.max ?? (integer ? 256 : 1000),
      integer,
      tolerance: options.capacity.tolerance ?? 0.1,
    };
    const max = option('capacity.max');
    positive(option('capacity.start', `capacity.start.${by}`), search.start, integer);
    positive(max, search.max, integer);
    if (search.max < search.start) throw optionsError`${max} (${search.max}) is below the start level (${search.start})`;
    positive(option('capacity.tolerance'), search.tolerance, false);
    if (options.capacity.maxOpen !== undefined) positive(option('capacity.maxOpen'), options.capacity.maxOpen, true);
    return {
      kind: 'capacity',
      by,
      search,
      seed: options.capacity.seed ?? 1,
      ...(options.capacity.maxOpen !== undefined ? { maxOpen: options.capacity.maxOpen } : {}),
    };
  }
  const profile = options.profile ?? { kind: 'synchronous' };
  if (profile.kind === 'concurrent') positive(option('profile.concurrency'), profile.concurrency, true);
  if (isStaged(profile)) checkStages(profile, options);
  else if (isOpenLoop(profile) && profile.kind !== 'replay') positive(option('profile.rate'), profile.rate, false);
  if (isOpenLoop(profile) && profile.maxOpen !== undefined) positive(option('profile.maxOpen'), profile.maxOpen, true);
  return { kind: 'single', profile };
}

/** Stages: durations and targets of zero or more (whole sessions for a closed loop), some target above 0, and no other ramp. */
function checkStages(profile: StagedProfile, options: RunOptions): void {
  const name = option(`profile.${profile.kind}`);
  const closed = profile.kind === 'stages';
  for (const { durationMs, target } of profile.stages) {
    nonNegative(name, durationMs);
    timerLimit(name, durationMs, 'ms');
    if (!(target >= 0) || (closed && !Number.isInteger(target)))
      throw optionsError`${name}: each target must be ${closed ? 'a whole number of sessions' : 'an arrival rate'} from 0 up, got ${target}`;
  }
  if (!(peakTarget(profile.stages) > 0)) throw optionsError`${name} never rise above 0: give some stage a target above 0`;
  if (options.rampUpMs) throw optionsError`${name} and ${option('rampUpMs')} do not combine: the stages are the ramp, so begin them with one from 0`;
}

/** The ramp, the measurement window and the error stops of each benchmark. */
export function checkStops(options: RunOptions): void {
  if (options.rampUpMs !== undefined) nonNegative(option('rampUpMs'), options.rampUpMs);
  for (const [name, exclusion] of [
    [option('window.warmup'), options.window?.warmup],
    [option('window.cooldown'), options.window?.cooldown],
  ] as const) {
    if (exclusion) nonNegative(name, 'sessions' in exclusion ? exclusion.sessions : exclusion.ms);
  }
  if (options.window?.coldGapMs !== undefined) nonNegative(option('window.coldGapMs'), options.window.coldGapMs);
  if (options.stopOnErrorRate) {
    const { maxErrorRate, minSessions } = options.stopOnErrorRate;
    if (!(maxErrorRate >= 0 && maxErrorRate <= 1)) throw optionsError`${option('stopOnErrorRate.maxErrorRate')} must be from 0 to 1, got ${maxErrorRate}`;
    positive(option('stopOnErrorRate.minSessions'), minSessions, true);
  }
  if (options.maxErrors !== undefined) positive(option('maxErrors'), options.maxErrors, true);
}

/** How long each benchmark runs: sessions, seconds, or a duration. */
export function checkLength(options: RunOptions): void {
  if (options.maxSessions !== undefined) {
    const maxSessions = option('maxSessions');
    positive(maxSessions, options.maxSessions, true);
    const left = measuredLeft(options.window ?? {}, options.maxSessions);
    if (left <= 0)
      throw optionsError`${option('window.warmup')} and ${option('window.cooldown')} leave out every one of ${maxSessions} ${options.maxSessions}: nothing would be measured; leave out fewer sessions or run more`;
  }
  for (const [name, seconds] of [
    [option('maxSeconds'), options.maxSeconds],
    [option('duration'), options.duration],
  ] as const) {
    if (seconds === undefined) continue;
    positive(name, seconds, false);
    timerLimit(name, seconds * 1000, 's');
  }
}

/** A share of the run: an index within the count, one thread, a run id every shard shares, a plan each shard can run alone. */
export function checkShard({ shard, runId, resume }: RunOptions, workers: number, plan: LoadPlan): void {
  const { index, count } = shard!;
  const name = option('shard');
  positive(option('shard.count'), count, true);
  if (!Number.isInteger(index) || index < 0 || index >= count)
    throw optionsError`${name} ${index}/${count}: the shard index counts from 0, so it must be a whole number from 0 to ${count - 1}`;
  if (!runId && resume === undefined)
    throw optionsError`a sharded run needs ${option('runId')}, the same for every shard, so that report merge joins their reports as one run`;
  if (workers > 1) throw optionsError`${name} and ${option('workers > 1', 'workers>1')} do not combine: run more shards instead, one per core`;
  if (plan.kind === 'capacity')
    throw optionsError`${CAPACITY} cannot be sharded: each shard would judge the SLOs on its own share and choose its own next level; shard a sweep or one level instead`;
}

/** Sessions a window counted in sessions leaves to measure of `maxSessions` (windows in seconds count none). */
function measuredLeft(window: MeasurementWindow, maxSessions: number): number {
  const count = (exclusion: MeasurementWindow['warmup']): number => (exclusion && 'sessions' in exclusion ? exclusion.sessions : 0);
  return maxSessions - count(window.warmup) - count(window.cooldown);
}
