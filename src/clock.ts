import { performance } from 'node:perf_hooks';

/**
 * The run's single monotonic clock. `now()` is milliseconds since the clock's origin,
 * with sub-millisecond precision; `wallStart` is the wall-clock time of that origin,
 * recorded once, for people.
 */
export interface Clock {
  now(): number;
  readonly wallStart: Date;
}

export function monotonicClock(): Clock {
  const origin = performance.now();
  return { now: () => performance.now() - origin, wallStart: new Date() };
}
