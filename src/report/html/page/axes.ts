import type { AxisSpec } from '../chart-spec.js';

/** Axis scaling, computed in the browser by the page script; a module of its own so Node tests it too. */

/**
 * An axis's bounds: the data and reference lines, with a little air, within any fixed
 * bounds. Flat data (every value 0, say) gets a span in its unit: 0–100 for
 * percentages, not 0–1; a whole-unit axis starts just below its lowest value, so its
 * first tick is that value and no marker is cut at the edge.
 */
export function axisRange(axis: AxisSpec, values: readonly number[]): [number, number] {
  const finite = values.filter((v) => Number.isFinite(v));
  let lo = finite.length > 0 ? Math.min(...finite) : 0;
  const hi = finite.length > 0 ? Math.max(...finite) : 0;
  if (axis.fromZero) lo = Math.min(0, lo);
  if (hi === lo) return [axis.min ?? lo, axis.max ?? lo + (axis.unit === '%' ? 100 : 1)];
  const air = (hi - lo) * 0.06;
  const below = axis.whole ? Math.min(air, 0.4) : axis.fromZero && lo === 0 ? 0 : air;
  return [axis.min ?? lo - below, axis.max ?? hi + air];
}

/** Tick positions of a whole-unit axis: its first whole value, then whole multiples of the step uPlot chose, never crowding the first. */
export function wholeSplits(min: number, max: number, increment: number): number[] {
  const step = Math.max(1, Math.round(increment));
  const first = Math.ceil(min);
  const ticks = [first];
  for (let v = (Math.floor((first + step / 2) / step) + 1) * step; v <= max; v += step) ticks.push(v);
  return ticks;
}
