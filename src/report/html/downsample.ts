/**
 * Bounding what the page embeds: the report keeps every value; the page keeps
 * enough points to draw each curve faithfully at screen resolution.
 */

/** At most `max` items, evenly spaced, the first and last always kept. */
export function evenly<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  if (max <= 1) return items.slice(0, max);
  return Array.from({ length: max }, (_, i) => items[Math.round((i * (items.length - 1)) / (max - 1))]!);
}

/**
 * The empirical CDF of `values` as step points (x = value, y = % of values at or
 * below it), at most about `max` steps: every value when there are few, else values
 * at evenly spaced ranks, min and max included.
 */
export function cdfPoints(values: ArrayLike<number>, max: number): { x: number[]; y: number[] } {
  // A typed array sorts numbers without a comparator call per pair: a level can hold 100,000 values.
  const sorted = Float64Array.from(values).filter(Number.isFinite).sort();
  const n = sorted.length;
  if (n === 0) return { x: [], y: [] };
  const ranks = evenly([...sorted.keys()], max);
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
