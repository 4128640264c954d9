import { drawIndices } from '../util/random.js';
import { percentile } from './stats.js';

/**
 * Percentile bootstrap: a figure recomputed over resamples of its units (turns, or whole
 * sessions) drawn with replacement, its 95% interval the 2.5th and 97.5th percentiles
 * of those draws. Draws come from a seeded generator, so an interval is reproducible.
 */
export const RESAMPLES = 1000;

/** The seed of every interval in a report's summary. */
export const BOOTSTRAP_SEED = 1;

/** How an interval was drawn, in words, for every output: "1000 resamples of the inputs (seed 1)". */
export function resamplesText(units: string): string {
  return `${RESAMPLES} resamples of the ${units} (seed ${BOOTSTRAP_SEED})`;
}

export type Interval = [number, number];

/** As many items, drawn with replacement. */
export function resample<T>(items: readonly T[], random: () => number): T[] {
  return Array.from({ length: items.length }, () => items[Math.floor(random() * items.length)]!);
}

/**
 * The 2.5th and 97.5th percentiles of the draws. A resample without the figure (a
 * metric few sessions have, a corpus without references) has no value and is left out.
 */
export function interval95(draws: ArrayLike<number>): Interval {
  const finite = Float64Array.from(draws).filter(Number.isFinite).sort();
  return [percentile(finite, 2.5), percentile(finite, 97.5)];
}

/**
 * The 95% interval of a pooled ratio, Σ numerators / Σ denominators (corpus WER: errors
 * over reference words), resampling units with the generator seeded with `seed`. Sums
 * are drawn directly, without building resampled arrays (linear in units × resamples:
 * 10^8 draws at 100,000 sessions, the largest single cost of rendering them, issue 38);
 * null without units.
 */
export function pooledRatioInterval(numerators: readonly number[], denominators: readonly number[], seed: number): Interval | null {
  const n = numerators.length;
  if (n === 0) return null;
  const tops = Float64Array.from(numerators);
  const bottoms = Float64Array.from(denominators);
  const picks = new Uint32Array(n);
  const draws = new Float64Array(RESAMPLES);
  let state = seed;
  for (let d = 0; d < RESAMPLES; d++) {
    state = drawIndices(state, picks, n);
    let top = 0;
    let bottom = 0;
    for (let i = 0; i < n; i++) {
      top += tops[picks[i]!]!;
      bottom += bottoms[picks[i]!]!;
    }
    draws[d] = bottom === 0 ? NaN : top / bottom;
  }
  return interval95(draws);
}
