import { timesOf, type TimedSession } from './cold-start.js';

/** Sessions left out of a benchmark's figures at its start and end: a count of sessions, or a span of ms. */
export type Exclusion = { sessions: number } | { ms: number };

export interface MeasurementWindow {
  warmup?: Exclusion;
  cooldown?: Exclusion;
  /** Idle time after which a session starts cold (see cold-start.ts), ms; default DEFAULT_COLD_GAP_MS. Cold sessions stay measured, their figures shown apart. */
  coldGapMs?: number;
}

export type Phase = 'warmup' | 'measured' | 'cooldown';

/**
 * Each session's phase. Warm-up: the first N sessions to start, or those planned to
 * start within the first ms of the benchmark. Cool-down: the last N sessions to end,
 * or those that ended within the last ms. Warm-up wins where both apply.
 */
export function phases(records: readonly TimedSession[], startMs: number, endMs: number, window: MeasurementWindow): Phase[] {
  const times = records.map(timesOf);
  const byStart = [...records.keys()].sort((a, b) => times[a]!.plannedStartMs - times[b]!.plannedStartMs);
  const byEnd = [...records.keys()].sort((a, b) => times[b]!.endMs - times[a]!.endMs);
  const result: Phase[] = records.map(() => 'measured');
  const { cooldown, warmup } = window;
  if (cooldown) {
    byEnd.forEach((i, rank) => {
      const inCooldown = 'sessions' in cooldown ? rank < cooldown.sessions : times[i]!.endMs > endMs - cooldown.ms;
      if (inCooldown) result[i] = 'cooldown';
    });
  }
  if (warmup) {
    byStart.forEach((i, rank) => {
      const inWarmup = 'sessions' in warmup ? rank < warmup.sessions : times[i]!.plannedStartMs < startMs + warmup.ms;
      if (inWarmup) result[i] = 'warmup';
    });
  }
  return result;
}
