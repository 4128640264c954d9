/** `--percentiles`: the statistics a summary shows, kept apart from the summaries so that a command checks the flag before it loads them. */
import { UsageError } from '../util/errors.js';

/**
 * A statistic of a metric's distribution, as `--percentiles` names it (as k6's
 * summaryTrendStats does): `count`, `mean`, `std`, `min`, `max`, or `pN` (e.g. p50,
 * p99.9).
 */
export type Statistic = string;

/**
 * The statistics the console table and the compact JSON show without `--percentiles`:
 * the console's columns before the flag existed (count is always shown besides).
 */
export const DEFAULT_STATISTICS: readonly Statistic[] = ['mean', 'p50', 'p90', 'p95', 'p99', 'max'];

const NAMED = new Set(['mean', 'std', 'min', 'max']);
/** The statistics a report stores per metric; any other needs the sessions' timelines. */
export const STORED_STATISTICS: ReadonlySet<Statistic> = new Set<string>(['mean', 'std', 'min', 'max', 'p50', 'p90', 'p95', 'p99']);

/** `--percentiles p50,p95,p99.9`: the statistics, in the order given, each once; a UsageError names what is wrong. */
export function parseStatistics(text: string): Statistic[] {
  const parts = text.split(',').map((s) => s.trim().toLowerCase());
  const seen: Statistic[] = [];
  for (const part of parts) {
    const p = /^p(\d+(?:\.\d+)?)$/.exec(part);
    const ok = NAMED.has(part) || (p !== null && Number(p[1]) > 0 && Number(p[1]) <= 100);
    if (!ok)
      throw new UsageError(`--percentiles takes a comma-separated list of pN (0 < N <= 100, e.g. p50,p95,p99.9), mean, std, min or max, got "${part || text}"`);
    const name = p ? `p${Number(p[1])}` : part;
    if (!seen.includes(name)) seen.push(name);
  }
  return seen;
}
