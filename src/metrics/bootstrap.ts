import { Worker } from 'node:worker_threads';
import { drawIndices, skipDraws } from '../util/random.js';
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
 * null without units. From `helpedFrom` units on, a helper thread draws the last
 * resamples while this one draws the first: resample d starts where the generator is
 * after d × units draws, so the interval is the same on any number of threads.
 */
export function pooledRatioInterval(numerators: readonly number[], denominators: readonly number[], seed: number, helpedFrom = HELPED_FROM): Interval | null {
  const n = numerators.length;
  if (n === 0) return null;
  const units: RatioUnits = { tops: sharedFloats(numerators), bottoms: sharedFloats(denominators), seed };
  const draws = new Float64Array(new SharedArrayBuffer(RESAMPLES * Float64Array.BYTES_PER_ELEMENT));
  const helper = n >= helpedFrom ? startHelper({ units, from: OWN_RESAMPLES, to: RESAMPLES, draws }) : undefined;
  const started = performance.now();
  drawRatios(units, 0, helper ? OWN_RESAMPLES : RESAMPLES, draws);
  // Should the helper fail or lag far behind (a machine this busy), its resamples are drawn here: the same values.
  if (helper && !helper.finished(HELPER_PATIENCE * (performance.now() - started) + 1000)) drawRatios(units, OWN_RESAMPLES, RESAMPLES, draws);
  return interval95(draws);
}

/** Units from which a helper thread shares a pooled ratio's resamples: 2·10^7 draws, about 0.15 s here, well beyond a thread's start. */
const HELPED_FROM = 20_000;

/** The resamples this thread draws when helped: a little over half, as the helper starts a little later. */
const OWN_RESAMPLES = 520;

/** How many times this thread's own drawing time it waits for the helper before drawing the rest itself. */
const HELPER_PATIENCE = 4;

/** A pooled ratio's units, in memory both threads read. */
export interface RatioUnits {
  tops: Float64Array;
  bottoms: Float64Array;
  seed: number;
}

/** What a helper thread draws: resamples `from` to `to` of the units, into `draws`. */
export interface HelperWork {
  units: RatioUnits;
  from: number;
  to: number;
  draws: Float64Array;
}

/** Resamples `from` to `to` of the pooled ratio, each into its place in `draws`. */
export function drawRatios({ tops, bottoms, seed }: RatioUnits, from: number, to: number, draws: Float64Array): void {
  const n = tops.length;
  const picks = new Uint32Array(n);
  let state = skipDraws(seed, from * n);
  for (let d = from; d < to; d++) {
    state = drawIndices(state, picks, n);
    let top = 0;
    let bottom = 0;
    for (let i = 0; i < n; i++) {
      top += tops[picks[i]!]!;
      bottom += bottoms[picks[i]!]!;
    }
    draws[d] = bottom === 0 ? NaN : top / bottom;
  }
}

function sharedFloats(values: readonly number[]): Float64Array {
  const floats = new Float64Array(new SharedArrayBuffer(values.length * Float64Array.BYTES_PER_ELEMENT));
  floats.set(values);
  return floats;
}

/** A helper thread drawing `work`; `finished` waits for it, up to `ms`, and says whether it drew them all. */
function startHelper(work: HelperWork): { finished(ms: number): boolean } {
  const done = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(new URL('./bootstrap-helper.js', import.meta.url), { workerData: { work, done } });
  // A helper that fails leaves its resamples to this thread: nothing to report.
  worker.on('error', () => undefined);
  worker.unref();
  return {
    finished(ms) {
      Atomics.wait(done, 0, 0, ms);
      void worker.terminate();
      return Atomics.load(done, 0) === HELPER_DONE;
    },
  };
}

/** What a helper thread sets in its `done` cell when it has drawn every resample it was given. */
export const HELPER_DONE = 1;
