import type { CapacitySearch } from './capacity.js';
import type { LoadProfile } from './profiles.js';

/** What a run does: one benchmark, a sweep of them, or a capacity search. */
export type LoadPlan =
  | { kind: 'single'; profile: LoadProfile }
  | { kind: 'sweep'; levels: number[] }
  /** Recorded traffic replayed: a level per window of the recording. */
  | { kind: 'replay'; levels: LoadProfile[] }
  | { kind: 'capacity'; by: 'concurrency' | 'rate'; search: CapacitySearch; seed: number; maxOpen?: number };

/** The profile a sweep or capacity search runs at `level`. */
export function profileAt(plan: Extract<LoadPlan, { kind: 'sweep' | 'capacity' }>, level: number): LoadProfile {
  if (plan.kind === 'sweep' || plan.by === 'concurrency') return { kind: 'concurrent', concurrency: level };
  return { kind: 'poisson', rate: level, seed: plan.seed, ...(plan.maxOpen !== undefined ? { maxOpen: plan.maxOpen } : {}) };
}
