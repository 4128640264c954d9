import { isOpenLoop, type LoadProfile } from '../load/profiles.js';
import { peakTarget } from '../load/stages.js';
import type { Benchmark, Report } from './schema.js';

/**
 * Load levels: what a benchmark's load was, as one number on a chart axis.
 * Closed loop: sessions at once; open loop: arrivals per second.
 */
export interface LoadAxis {
  label: string;
  unit: string;
  /** How a level reads in a sentence: "16 concurrent sessions", "2.5 arrivals/s". */
  noun: string;
  /** Levels are whole sessions (concurrency), not rates. */
  whole: boolean;
}

/** A staged profile's level is its peak. */
export function loadLevel(profile: LoadProfile): number {
  switch (profile.kind) {
    case 'synchronous':
      return 1;
    case 'concurrent':
      return profile.concurrency;
    case 'stages':
    case 'rate-stages':
      return peakTarget(profile.stages);
    case 'replay':
      return replayRate(profile.arrivals);
    default:
      return profile.rate;
  }
}

/** A replay's level: its mean arrival rate, sessions/s over the span of its arrivals (a rate needs two). */
export function replayRate(arrivals: readonly number[]): number {
  const span = arrivals.length > 1 ? arrivals[arrivals.length - 1]! - arrivals[0]! : 0;
  return span > 0 ? ((arrivals.length - 1) * 1000) / span : 0;
}

export function loadAxis(report: Report): LoadAxis {
  const openLoop = report.benchmarks.some((b) => isOpenLoop(b.profile));
  return openLoop
    ? { label: 'arrival rate', unit: 'sessions/s', noun: 'arrivals/s', whole: false }
    : { label: 'concurrency', unit: 'sessions', noun: 'concurrent sessions', whole: true };
}

/** Benchmarks by increasing load; a capacity search runs them out of order. */
export function benchmarksByLevel(report: Report): Benchmark[] {
  return [...report.benchmarks].sort((a, b) => loadLevel(a.profile) - loadLevel(b.profile));
}

/** A level with its unit, e.g. "1 concurrent session", "2.5 arrivals/s". */
export function levelText(value: number, by: 'concurrency' | 'rate'): string {
  const n = Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
  return by === 'rate' ? `${n} arrivals/s` : `${n} concurrent session${value === 1 ? '' : 's'}`;
}
