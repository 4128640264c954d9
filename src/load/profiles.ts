import { seededRandom } from '../util/random.js';

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
 */
export type LoadProfile =
  | { kind: 'synchronous' }
  | { kind: 'concurrent'; concurrency: number }
  | { kind: 'constant'; rate: number; maxOpen?: number }
  | { kind: 'poisson'; rate: number; maxOpen?: number; seed: number };

export type OpenLoopProfile = Extract<LoadProfile, { kind: 'constant' | 'poisson' }>;

export const PROFILE_KINDS = ['synchronous', 'concurrent', 'constant', 'poisson'] as const;

export function isOpenLoop(profile: LoadProfile): profile is OpenLoopProfile {
  return profile.kind === 'constant' || profile.kind === 'poisson';
}

/** Sessions a closed-loop profile runs at once. */
export function lanes(profile: Exclude<LoadProfile, OpenLoopProfile>): number {
  return profile.kind === 'synchronous' ? 1 : profile.concurrency;
}

/** Short label, e.g. `synchronous`, `concurrent@8`, `poisson@2.5/s`. */
export function profileLabel(profile: LoadProfile): string {
  switch (profile.kind) {
    case 'synchronous':
      return 'synchronous';
    case 'concurrent':
      return `concurrent@${profile.concurrency}`;
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
 * before `untilMs`, ms from the benchmark start (one of the two must be finite). The arrival rate ramps linearly from 0 to `rate` over `rampUpMs`
 * (none when 0), so the expected arrivals by time t are Λ(t) = rate·t²/(2R) during the
 * ramp and rate·(t − R/2) after it. `constant` puts arrival i at Λ⁻¹(i); `poisson`
 * draws unit-rate exponential gaps from the seeded generator and maps their running
 * sum through the same Λ⁻¹, which gives a Poisson process with that intensity.
 */
export function arrivalSchedule(profile: OpenLoopProfile, count: number, rampUpMs: number, untilMs = Infinity): number[] {
  const rate = profile.rate / 1000; // arrivals per ms
  const rampArrivals = (rate * rampUpMs) / 2;
  const inverse = (n: number): number => (n <= rampArrivals ? Math.sqrt((2 * rampUpMs * n) / rate) : rampUpMs + (n - rampArrivals) / rate);
  const random = profile.kind === 'poisson' ? seededRandom(profile.seed) : undefined;
  const schedule: number[] = [];
  let sum = 0;
  for (let i = 0; i < count; i++) {
    sum = random ? sum - Math.log(1 - random()) : i;
    const t = inverse(sum);
    if (t >= untilMs) break;
    schedule.push(t);
  }
  return schedule;
}
