import { seededRandom } from '../util/random.js';
import { arrivalTime, peakTarget, stagesLength, stagesText, type LoadStage } from './stages.js';

/**
 * Load profiles: pure descriptions of who starts when.
 *
 * Closed-loop profiles (`synchronous`, `concurrent`) run a number of lanes; each lane
 * runs one session at a time and starts the next as soon as the previous ends, so a
 * session's planned start is the moment its lane became free.
 *
 * Open-loop profiles (`constant`, `poisson`) plan every start time up front from an
 * arrival rate; a session starts at its planned time whether or not earlier ones have
 * finished, unless `maxOpen` sessions are already open (a *cap hit*, counted; the
 * session then waits for a slot and its start lag shows the wait).
 *
 * Staged profiles ramp through stages (stages.ts): `stages` ramps the lanes open
 * (closed loop), `rate-stages` the arrival rate (open loop, evenly spaced, or Poisson
 * with a seed); the stages' length is the benchmark's.
 */
export type LoadProfile =
  | { kind: 'synchronous' }
  | { kind: 'concurrent'; concurrency: number }
  | { kind: 'constant'; rate: number; maxOpen?: number }
  | { kind: 'poisson'; rate: number; maxOpen?: number; seed: number }
  | { kind: 'stages'; stages: LoadStage[] }
  /** Recorded traffic replayed (replay.ts): each session's start, ms from the level's start, as planned from a traffic shape; its sessions are the run's `first` onwards. */
  | { kind: 'replay'; label: string; first: number; arrivals: number[]; maxOpen?: number }
  | { kind: 'rate-stages'; stages: LoadStage[]; maxOpen?: number; seed?: number };

export type OpenLoopProfile = Extract<LoadProfile, { kind: 'constant' | 'poisson' | 'rate-stages' | 'replay' }>;
export type StagedProfile = Extract<LoadProfile, { kind: 'stages' | 'rate-stages' }>;

/** The kinds a flag or a config file can name (a replay comes from `--replay`). */
export const PROFILE_KINDS = ['synchronous', 'concurrent', 'constant', 'poisson', 'stages', 'rate-stages'] as const;

export function isOpenLoop(profile: LoadProfile): profile is OpenLoopProfile {
  return profile.kind === 'constant' || profile.kind === 'poisson' || profile.kind === 'rate-stages' || profile.kind === 'replay';
}

export function isStaged(profile: LoadProfile): profile is StagedProfile {
  return profile.kind === 'stages' || profile.kind === 'rate-stages';
}

/** Sessions a closed-loop profile runs at once, at most. */
export function lanes(profile: Exclude<LoadProfile, OpenLoopProfile>): number {
  switch (profile.kind) {
    case 'synchronous':
      return 1;
    case 'concurrent':
      return profile.concurrency;
    case 'stages':
      return Math.floor(peakTarget(profile.stages));
  }
}

/** Short label, e.g. `synchronous`, `concurrent@8`, `poisson@2.5/s`, `stages 30s:8,60s:0`. */
export function profileLabel(profile: LoadProfile): string {
  switch (profile.kind) {
    case 'synchronous':
      return 'synchronous';
    case 'concurrent':
      return `concurrent@${profile.concurrency}`;
    case 'replay':
      return profile.label;
    case 'stages':
    case 'rate-stages':
      return `${profile.kind} ${stagesText(profile.stages)}${profile.kind === 'rate-stages' && profile.maxOpen !== undefined ? ` (max ${profile.maxOpen} open)` : ''}`;
    default:
      return `${profile.kind}@${profile.rate}/s${profile.maxOpen !== undefined ? ` (max ${profile.maxOpen} open)` : ''}`;
  }
}

/**
 * When each lane of a closed-loop profile starts, ms from the benchmark start: spread
 * evenly over `spreadMs` (a ramp-up, or by default one chunk period, so that no two
 * lanes' chunks fall due in the same instant), or all at once when it is 0.
 */
export function laneStarts(laneCount: number, spreadMs: number): number[] {
  return Array.from({ length: laneCount }, (_, lane) => (spreadMs * lane) / laneCount);
}

/**
 * Planned start times of an open-loop profile's first `count` sessions that fall
 * before `untilMs` (and the stages' end), ms from the benchmark start (one of the three must be finite). The
 * arrival rate follows the stages, or ramps linearly from 0 to `rate` over `rampUpMs`
 * (none when 0) and stays there; Λ(t) is the arrivals expected by time t. Evenly
 * spaced arrivals put arrival i at Λ⁻¹(i); Poisson arrivals (`poisson`, or stages with a
 * seed) draw unit-rate exponential gaps from the seeded generator and map their running
 * sum through the same Λ⁻¹, which gives a Poisson process with that intensity.
 */
export function arrivalSchedule(profile: OpenLoopProfile, count: number, rampUpMs: number, untilMs = Infinity): number[] {
  if (profile.kind === 'replay') return profile.arrivals.slice(0, count).filter((t) => t < untilMs);
  const stages =
    profile.kind === 'rate-stages'
      ? profile.stages
      : [
          { durationMs: rampUpMs, target: profile.rate },
          { durationMs: Infinity, target: profile.rate },
        ];
  const seed = profile.kind === 'constant' ? undefined : profile.seed;
  const random = seed === undefined ? undefined : seededRandom(seed);
  // Staged arrivals end with the stages: one due as the last stage ends is not planned.
  const until = profile.kind === 'rate-stages' ? Math.min(untilMs, stagesLength(stages)) : untilMs;
  const schedule: number[] = [];
  let sum = 0;
  for (let i = 0; i < count; i++) {
    sum = random ? sum - Math.log(1 - random()) : i;
    const t = arrivalTime(stages, sum);
    if (t >= until) break;
    schedule.push(t);
  }
  return schedule;
}
