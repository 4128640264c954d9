/**
 * Load profiles. The closed-loop profiles here are defined by their number of lanes:
 * each lane runs one session at a time and starts the next as soon as the previous
 * ends, so a session's planned start is the moment its lane became free.
 */
export type LoadProfile = { kind: 'synchronous' } | { kind: 'concurrent'; concurrency: number };

export const PROFILE_KINDS = ['synchronous', 'concurrent'] as const;

/** Sessions running at once. */
export function lanes(profile: LoadProfile): number {
  return profile.kind === 'synchronous' ? 1 : profile.concurrency;
}

/** Short label, e.g. `synchronous` or `concurrent@8`. */
export function profileLabel(profile: LoadProfile): string {
  return profile.kind === 'synchronous' ? 'synchronous' : `concurrent@${profile.concurrency}`;
}
