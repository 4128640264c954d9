import { interval95, resample, RESAMPLES, type Interval } from '../metrics/bootstrap.js';
import { percentile } from '../metrics/stats.js';

/**
 * Percentile-bootstrap intervals for `report compare`. Whole sessions are resampled,
 * never single values: the gaps or words of one session are not independent, and
 * treating them as such would make intervals too narrow. (Corpus WER and CER resample
 * turns, each scored on its own, as the catalog declares.)
 */
export { RESAMPLES, type Interval };

/** The median of every session's values pooled, B − A, and the 95% interval of that difference. */
export function medianDelta(a: readonly number[][], b: readonly number[][], random: () => number): { value: number; ci95: Interval } {
  const median = (sessions: readonly number[][]): number => percentile(sorted(sessions.flat()), 50);
  const draws = Array.from({ length: RESAMPLES }, () => median(resample(b, random)) - median(resample(a, random)));
  return { value: median(b) - median(a), ci95: interval95(draws) };
}

/** 95% intervals of a corpus figure on each side (`reduce` over resampled sessions) and of its difference, B − A. */
export function corpusIntervals<T>(
  a: readonly T[],
  b: readonly T[],
  reduce: (items: readonly T[]) => number | null,
  random: () => number,
): { a: Interval; b: Interval; delta: Interval } {
  const draws = Array.from({ length: RESAMPLES }, () => [reduce(resample(a, random)) ?? NaN, reduce(resample(b, random)) ?? NaN] as const);
  return { a: interval95(draws.map(([x]) => x)), b: interval95(draws.map(([, y]) => y)), delta: interval95(draws.map(([x, y]) => y - x)) };
}

function sorted(values: readonly number[]): Float64Array {
  return Float64Array.from(values).sort();
}
