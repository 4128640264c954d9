import { sortNumbers } from '../util/sort-numbers.js';

/** Distribution summary of one metric. */
export interface Distribution {
  count: number;
  mean: number;
  std: number;
  min: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

export const PERCENTILE_METHOD =
  'linear interpolation between closest ranks (Hyndman-Fan type 7, as numpy.percentile); std is the sample standard deviation (n-1)';

/** Summarizes finite values; null when there are none. */
export function summarize(values: readonly number[]): Distribution | null {
  return summarizeSorted(sortedFinite(values));
}

/** The finite values, ascending; put straight into the array that is sorted, with no list of them first (a level's samples are 100,000s). */
export function sortedFinite(values: readonly number[]): Float64Array {
  let n = 0;
  for (const v of values) if (Number.isFinite(v)) n++;
  const sorted = new Float64Array(n);
  let at = 0;
  for (const v of values) if (Number.isFinite(v)) sorted[at++] = v;
  return sortNumbers(sorted);
}

/**
 * Two ascending arrays as one, in the order sorting both together gives (−0 before 0,
 * as `Float64Array#sort` puts it): a level's values from its cold and warm sessions'
 * values, each sorted once.
 */
export function mergeSorted(a: Float64Array, b: Float64Array): Float64Array {
  const merged = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let at = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x < y || (x === y && !(Object.is(y, -0) && !Object.is(x, -0)))) {
      merged[at++] = x;
      i++;
    } else {
      merged[at++] = y;
      j++;
    }
  }
  merged.set(a.subarray(i), at);
  merged.set(b.subarray(j), at + a.length - i);
  return merged;
}

/** The distribution of finite values sorted already (`sortedFinite`); null when there are none. */
export function summarizeSorted(sorted: Float64Array): Distribution | null {
  const n = sorted.length;
  if (n === 0) return null;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (sorted[i]! - mean) ** 2;
  return {
    count: n,
    mean,
    std: n > 1 ? Math.sqrt(squares / (n - 1)) : 0,
    min: sorted[0]!,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[n - 1]!,
  };
}

/**
 * Values a percentile needs before its tail means much: its top (100 − p)% must hold at
 * least one value, so p95 rests on 20, p99 on 100, p50 on 2; a p100 (the max) on 1.
 * Shared by the thin-tail warnings and a capacity search's sessions per level.
 */
export function valuesTrustedFor(p: number): number {
  // Rounded to whole values first: 100 / (100 - 99.9) is 1000.0000000000001.
  return p >= 100 ? 1 : Math.ceil(Number((100 / (100 - p)).toPrecision(12)));
}

/** Type-7 percentile of ascending values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const rank = ((sorted.length - 1) * p) / 100;
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** The largest of `values` and `floor`; a loop, since spreading a long array into Math.max overflows the stack. */
export function maxOf(values: Iterable<number>, floor = -Infinity): number {
  let max = floor;
  for (const v of values) if (v > max) max = v;
  return max;
}

export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}
