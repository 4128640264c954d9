import type { LoadProfile } from '../../load/profiles.js';
import type { Benchmark, Report } from '../schema.js';

/**
 * Load levels: what a benchmark's load was, as one number on a chart axis.
 * Closed loop: sessions at once; open loop: arrivals per second.
 */
export interface LoadAxis {
  label: string;
  unit: string;
  /** How a level reads in a sentence: "16 concurrent sessions", "2.5 arrivals/s". */
  noun: string;
}

export function loadLevel(profile: LoadProfile): number {
  switch (profile.kind) {
    case 'synchronous':
      return 1;
    case 'concurrent':
      return profile.concurrency;
    default:
      return profile.rate;
  }
}

export function loadAxis(report: Report): LoadAxis {
  const openLoop = report.benchmarks.some((b) => b.profile.kind === 'constant' || b.profile.kind === 'poisson');
  return openLoop
    ? { label: 'arrival rate', unit: 'sessions/s', noun: 'arrivals/s' }
    : { label: 'concurrency', unit: 'sessions', noun: 'concurrent sessions' };
}

/** Benchmarks by increasing load; a capacity search runs them out of order. */
export function benchmarksByLevel(report: Report): Benchmark[] {
  return [...report.benchmarks].sort((a, b) => loadLevel(a.profile) - loadLevel(b.profile));
}
