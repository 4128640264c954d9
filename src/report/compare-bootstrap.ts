import { percentile } from '../metrics/stats.js';

/**
 * Percentile-bootstrap intervals for `report compare`. Whole sessions are resampled,
 * never single values: the gaps or words of one session are not independent, and
 * treating them as such would make intervals too narrow.
 */
export const RESAMPLES = 1000;

export type Interval = [number, number];

/** The median of every session's values pooled, B − A, and the 95% interval of that difference. */
export function medianDelta(a: readonly number[][], b: readonly number[][], random: () => number): { value: number; ci95: Interval } {
  const median = (sessions: readonly number[][]): number => percentile(sorted(sessions.flat()), 50);
  const draws = Array.from({ length: RESAMPLES }, () => median(resample(b, random)) - median(resample(a, random)));
  return { value: median(b) - median(a), ci95: interval95(draws) };
}

/** 95% intervals of a corpus figure on each side (`reduce` over resampled sessions) and of its difference, B − A. */
export function corpusIntervals<T>(a: readonly T[], b: readonly T[], reduce: (items: readonly T[]) => number | null, random: () => number): { a: Interval; b: Interval; delta: Interval } {
  const draws = Array.from({ length: RESAMPLES }, () => [reduce(resample(a, random)) ?? NaN, reduce(resample(b, random)) ?? NaN] as const);
  return { a: interval95(draws.map(([x]) => x)), b: interval95(draws.map(([, y]) => y)), delta: interval95(draws.map(([x, y]) => y - x)) };
}

/**
 * The 2.5th and 97.5th percentiles of the draws. A resample of sessions that all lack
 * the figure (a metric few sessions have, a corpus without references) has no value
 * and is left out.
 */
function interval95(draws: readonly number[]): Interval {
  const finite = sorted(draws.filter(Number.isFinite));
  return [percentile(finite, 2.5), percentile(finite, 97.5)];
}

function sorted(values: readonly number[]): Float64Array {
  return Float64Array.from(values).sort();
}

/** As many items, drawn with replacement. */
function resample<T>(items: readonly T[], random: () => number): T[] {
  return Array.from({ length: items.length }, () => items[Math.floor(random() * items.length)]!);
}
