import { sortNumbers } from '../../util/sort-numbers.js';

/**
 * Bounding what the page embeds: the report keeps every value; the page keeps
 * enough points to draw each curve faithfully at screen resolution.
 */

/** At most `max` items, evenly spaced, the first and last always kept. */
export function evenly<T>(items: readonly T[], max: number): T[] {
  return evenlyRanks(items.length, max).map((rank) => items[rank]!);
}

/** The ranks `evenly` keeps of `n` items. */
export function evenlyRanks(n: number, max: number): number[] {
  const kept = Math.max(0, Math.min(n, max));
  if (kept === n || kept <= 1) return Array.from({ length: kept }, (_, i) => i);
  return Array.from({ length: kept }, (_, i) => Math.round((i * (n - 1)) / (kept - 1)));
}

/**
 * The empirical CDF of `values` as step points (x = value, y = % of values at or
 * below it), at most about `max` steps: every value when there are few, else values
 * at evenly spaced ranks, min and max included.
 */
export function cdfPoints(values: ArrayLike<number>, max: number): { x: number[]; y: number[] } {
  // A level's column can hold millions of values: sorted as numbers, and only the ranks drawn listed.
  const sorted = sortNumbers(Float64Array.from(values).filter(Number.isFinite));
  const n = sorted.length;
  if (n === 0) return { x: [], y: [] };
  const ranks = evenlyRanks(n, max);
  const x = [sorted[0]!, ...ranks.map((r) => sorted[r]!)];
  const y = [0, ...ranks.map((r) => ((r + 1) / n) * 100)];
  return { x, y };
}

/** Rounds for embedding: values as shown on the page, at a fraction of the JSON size. */
export function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

/** Points of a curve, those without a value (a level or a time bucket where nothing was measured) left out. */
export function definedPoints(xs: readonly number[], ys: ReadonlyArray<number | null | undefined>): { x: number[]; y: number[] } {
  const kept = xs.flatMap((x, i) => (ys[i] === null || ys[i] === undefined ? [] : [[x, ys[i]] as const]));
  return { x: kept.map(([x]) => x), y: kept.map(([, y]) => round(y, 4)) };
}
