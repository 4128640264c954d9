import type { Better, Unit } from '../metrics/catalog.js';
import type { Interval } from './compare-bootstrap.js';
import type { Side } from './compare-side.js';

/**
 * B against A on one figure, by the catalog's direction of goodness: `better` or
 * `worse` when the 95% interval of the difference excludes 0; `different` when it
 * does, for a quantity where neither direction is better (bytes received); `unclear`
 * when the interval holds 0; `same` when it is 0 to 0 (every resample equal, as
 * `0 -> 0`); `workload` for a figure of what the client sent (the catalog's `workload`
 * tag: audio_ms, chars), which judges no server.
 */
export type Verdict = 'better' | 'worse' | 'different' | 'unclear' | 'same' | 'workload';

/** One metric of two benchmarks side by side: medians and tails, and how sure the difference is. */
export interface MetricComparison {
  metric: string;
  unit: Unit;
  better: Better;
  headline: boolean;
  /** The catalog's definition, for people. */
  description: string;
  countA: number;
  countB: number;
  p50A: number;
  p50B: number;
  p95A: number;
  p95B: number;
  /** The statistics `--percentiles` chose, each side's value, in the order given; absent without the flag. */
  statistics?: Array<{ name: string; a: number; b: number }>;
  /** B − A of the medians, with a 95% bootstrap interval. */
  deltaP50: number;
  ci95: Interval;
  verdict: Verdict;
  /** Headline metrics: each side's distribution as CDF steps (x: value, y: % at or below), for charts. */
  cdf?: { a: Cdf; b: Cdf };
}

export interface Cdf {
  x: number[];
  y: number[];
}

export interface Estimate {
  value: number;
  ci95: Interval;
}

/** A corpus figure (e.g. corpus WER) on each side, with its interval, and their difference; null where a side has none. */
export interface CorpusComparison {
  metric: string;
  unit: Unit;
  better: Better;
  a: Estimate | null;
  b: Estimate | null;
  /** B − A, when both sides have a value. */
  delta: (Estimate & { verdict: Verdict }) | null;
}

export interface Comparison {
  a: Side;
  b: Side;
  /** Why the two runs may measure different things (datasets, levels, protocols, pacing). */
  warnings: string[];
  resamples: number;
  metrics: MetricComparison[];
  corpus: CorpusComparison[];
}
