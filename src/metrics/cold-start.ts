import { sessionEndMs, type SessionRecord } from '../timeline/types.js';

/**
 * How long the target must have had no session open before the next session counts as
 * cold, when not given (`--cold-gap-s`). 30 s is far above any pause of a steady load
 * (a closed loop's next session starts within milliseconds, HTTP keep-alive closes idle
 * connections after 5 s in uvicorn and Node.js), and below the 60 s a scale-to-zero
 * platform waits with no traffic before it removes the last replica (Knative's default
 * `stable-window`, https://knative.dev/docs/serving/autoscaling/kpa-specific/): a gap that
 * could have let the deployment scale away is never taken for a warm one.
 */
export const DEFAULT_COLD_GAP_MS = 30_000;

/** How a session found the target: `cold`, the first after the run starts or after an idle gap; `warm`, any other. */
export type Start = 'cold' | 'warm';

/**
 * Each session's start. Sessions are taken in the order they started: one is cold when
 * no session had been open for more than `gapMs` before it, or none had been open at
 * all. `activeUntilMs`, the end of the last session of the run's earlier levels, carries
 * the target's activity over from one level to the next; without it the level's first
 * session is the run's first, so cold.
 */
export function starts(records: readonly SessionRecord[], gapMs: number, activeUntilMs?: number): Start[] {
  const byStart = [...records.keys()].sort((a, b) => records[a]!.timeline.startMs - records[b]!.timeline.startMs || records[a]!.index - records[b]!.index);
  const result: Start[] = records.map(() => 'warm');
  let busyUntil = activeUntilMs ?? -Infinity;
  for (const i of byStart) {
    const { timeline } = records[i]!;
    if (busyUntil === -Infinity || timeline.startMs - busyUntil > gapMs) result[i] = 'cold';
    busyUntil = Math.max(busyUntil, sessionEndMs(timeline));
  }
  return result;
}

/** The end of the last of the sessions, for the next level's `activeUntilMs`; undefined without any. */
export function lastEndMs(records: readonly SessionRecord[]): number | undefined {
  return records.reduce<number | undefined>((last, r) => Math.max(last ?? -Infinity, sessionEndMs(r.timeline)), undefined);
}
