/** Smallest value told apart, and the ratio between neighbouring bin edges. */
const MIN = 1e-3;
const GROWTH = 1.02;
/** Bins from MIN to about 1e7 (ms: a microsecond to three hours). */
const BINS = Math.ceil(Math.log(1e10) / Math.log(GROWTH)) + 1;

/**
 * A running percentile estimate of positive values: a fixed-bin log histogram, so an
 * update is one increment and a query one pass over the bins, with no sort of the
 * values seen. An estimate is within (√GROWTH − 1), about 1%, of a value of the
 * bin the exact percentile falls in; values at or below MIN count as MIN.
 */
export class LogHistogram {
  private readonly counts = new Float64Array(BINS);
  private n = 0;

  get count(): number {
    return this.n;
  }

  add(value: number): void {
    if (!Number.isFinite(value)) return;
    const bin = value <= MIN ? 0 : Math.min(BINS - 1, Math.ceil(Math.log(value / MIN) / Math.log(GROWTH)));
    this.counts[bin]!++;
    this.n++;
  }

  /** The p-th percentile (0 to 100), at the rank type-7 uses; undefined before any value. */
  percentile(p: number): number | undefined {
    if (this.n === 0) return undefined;
    const rank = Math.round(((this.n - 1) * p) / 100);
    let seen = 0;
    for (let bin = 0; bin < BINS; bin++) {
      seen += this.counts[bin]!;
      // Bin b holds (MIN·G^(b−1), MIN·G^b]; its geometric middle is the estimate.
      if (seen > rank) return bin === 0 ? MIN : MIN * GROWTH ** (bin - 0.5);
    }
    return undefined;
  }
}
