/**
 * The delays the client measures on itself while it runs: plain data and its
 * combination, apart from the probe that measures them (which starts a worker thread),
 * so reports and metrics read them without loading the probe.
 */

/** A delay distribution the client measured on itself, ms. */
export interface DelaySummary {
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export const NO_DELAY: DelaySummary = { meanMs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 };

/** Each figure's worst over several threads or runs: what the slowest of them could have added. */
export function worstDelay(summaries: readonly DelaySummary[]): DelaySummary {
  const worst = (key: keyof DelaySummary): number => Math.max(0, ...summaries.map((s) => s[key]));
  return { meanMs: worst('meanMs'), p50Ms: worst('p50Ms'), p99Ms: worst('p99Ms'), maxMs: worst('maxMs') };
}

/** How late the event loop ran timers during the benchmark, beyond their due time. */
export type EventLoopDelay = DelaySummary;
