import { performance } from 'node:perf_hooks';

/**
 * The run's single monotonic clock. `now()` is milliseconds since the clock's origin,
 * with sub-millisecond precision; `wallStart` is the wall-clock time of that origin,
 * recorded once, for people; `origin` is the origin on the high-resolution timeline
 * that every thread of the process shares, so worker threads can read the same clock.
 */
export interface Clock {
  now: () => number;
  readonly wallStart: Date;
  readonly origin: number;
}

export function monotonicClock(): Clock {
  const start = performance.now();
  return { now: () => performance.now() - start, wallStart: new Date(), origin: performance.timeOrigin + start };
}

/** Another thread's view of a clock: the same `now()`, from that clock's `origin`. */
export function alignedClock(origin: number, wallStart: Date): Clock {
  const offset = origin - performance.timeOrigin;
  return { now: () => performance.now() - offset, wallStart, origin };
}
