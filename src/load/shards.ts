import { isOpenLoop, lanes, type LoadProfile } from './profiles.js';

/** One worker's part of a benchmark: the profile it runs and the session indices that are its own. */
export interface Share {
  /** Null when the worker has no lane of a closed-loop profile. */
  profile: LoadProfile | null;
  owns: (index: number) => boolean;
  /** Closed loop: the lanes of the whole level this worker runs, so each starts at its own phase of the level's spread. */
  lanes?: { mine: number[]; of: number };
}

/**
 * Splits a benchmark over `count` workers so that together they run exactly the
 * sessions one thread would. Closed loop: lane l belongs to worker l mod count, and a
 * session to the worker of the lane it would run on (index mod lanes). Open loop:
 * session i belongs to worker i mod count, at the planned time of the whole schedule;
 * a cap on open sessions is split evenly (rounded up).
 */
export function shareOf(profile: LoadProfile, worker: number, count: number): Share {
  if (isOpenLoop(profile)) {
    const maxOpen = profile.maxOpen === undefined ? {} : { maxOpen: Math.ceil(profile.maxOpen / count) };
    return { profile: { ...profile, ...maxOpen }, owns: (index) => index % count === worker };
  }
  const total = lanes(profile);
  const mine = Array.from({ length: total }, (_, lane) => lane).filter((lane) => lane % count === worker);
  return {
    // Staged lanes keep the stages: each comes on when the whole level's target reaches it.
    profile: mine.length === 0 ? null : profile.kind === 'stages' ? profile : { kind: 'concurrent', concurrency: mine.length },
    owns: (index) => (index % total) % count === worker,
    lanes: { mine, of: total },
  };
}
