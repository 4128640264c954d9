import { sessionEndMs, type SessionOutcome, type SessionRecord } from '../timeline/types.js';

/**
 * How long the target must have had no answered session open before the next one counts as
 * cold, when not given (`--cold-gap-s`). 30 s is far above any pause of a steady load
 * (a closed loop's next session starts within milliseconds, HTTP keep-alive closes idle
 * connections after 5 s in uvicorn and Node.js), and below the 60 s a scale-to-zero
 * platform waits with no traffic before it removes the last replica (Knative's default
 * `stable-window`, https://knative.dev/docs/serving/autoscaling/kpa-specific/): a gap that
 * could have let the deployment scale away is never taken for a warm one.
 */
export const DEFAULT_COLD_GAP_MS = 30_000;

/** How a session found the target: `cold`, the first answered after the run starts or after an idle gap; `warm`, any other. */
export type Start = 'cold' | 'warm';

/** A session as the start and phase rules see it: a record, or one whose figures are taken (`FiguredSession`, whose times these are). */
export type TimedSession = SessionRecord | { index: number; outcome: SessionOutcome; figures: SessionTimes };

/** When a session was planned to start, started and ended, ms. */
export interface SessionTimes {
  plannedStartMs: number;
  startMs: number;
  endMs: number;
}

/** When a session was planned to start, started and ended. */
export function timesOf(session: TimedSession): SessionTimes {
  if ('figures' in session) return session.figures;
  const { timeline } = session;
  return { plannedStartMs: timeline.plannedStartMs, startMs: timeline.startMs, endMs: sessionEndMs(timeline) };
}

/**
 * Whether a session shows the target answering: it completed. A failed session (a
 * refused first attempt, a timeout while the target was still loading) and one cut off
 * at the run's end say nothing of whether the target was up, so they neither start cold
 * nor keep the target warm for the sessions after them.
 */
function answered(record: { outcome: SessionOutcome }): boolean {
  return record.outcome.status === 'completed';
}

/**
 * Each session's start. Answered sessions are taken in the order they started: one is
 * cold when no answered session had been open for more than `gapMs` before it, or none
 * had been open at all; every other session, answered or not, is warm. So a refused
 * first attempt leaves the real cold start to the attempt after it, and sessions that
 * started while the first was still waiting for its answer do not count as warmth
 * unless they were answered. `activeUntilMs`, the end of the last answered session of
 * the run's earlier levels, carries the target's activity over from one level to the
 * next; without it the level's first answered session is the run's first, so cold.
 */
export function starts(records: readonly TimedSession[], gapMs: number, activeUntilMs?: number): Start[] {
  const times = records.map(timesOf);
  const byStart = [...records.keys()]
    .filter((i) => answered(records[i]!))
    .sort((a, b) => times[a]!.startMs - times[b]!.startMs || records[a]!.index - records[b]!.index);
  const result: Start[] = records.map(() => 'warm');
  let busyUntil = activeUntilMs ?? -Infinity;
  for (const i of byStart) {
    const { startMs, endMs } = times[i]!;
    if (busyUntil === -Infinity || startMs - busyUntil > gapMs) result[i] = 'cold';
    busyUntil = Math.max(busyUntil, endMs);
  }
  return result;
}

/** The end of the last of the answered sessions, for the next level's `activeUntilMs`; undefined without any. */
export function lastEndMs(records: readonly TimedSession[]): number | undefined {
  return records.filter(answered).reduce<number | undefined>((last, r) => Math.max(last ?? -Infinity, timesOf(r).endMs), undefined);
}
