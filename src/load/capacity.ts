/**
 * Capacity search: the largest load level at which every SLO holds. It runs the
 * start level, doubles while levels pass, then bisects between the last level that
 * passed and the first that failed, until they are adjacent (integer levels, e.g.
 * concurrency) or within `tolerance` of each other relatively (rates). The answer is
 * bracketed: it passed, and `failsAt` failed.
 */
export interface CapacitySearch {
  start: number;
  max: number;
  /** Levels are whole numbers (concurrency) or not (arrival rates). */
  integer: boolean;
  /** Rates: stop bisecting when (failsAt - answer) / answer is at most this. */
  tolerance: number;
}

export interface CapacityResult {
  /** Largest level that passed; null when even the start level failed. */
  answer: number | null;
  /** Smallest level that failed; null when every level up to `max` passed. */
  failsAt: number | null;
  probes: Array<{ level: number; pass: boolean }>;
}

export async function searchCapacity(search: CapacitySearch, probe: (level: number) => Promise<boolean>): Promise<CapacityResult> {
  const probes: CapacityResult['probes'] = [];
  const test = async (level: number): Promise<boolean> => {
    const pass = await probe(level);
    probes.push({ level, pass });
    return pass;
  };
  let passed: number | null = null;
  let failed: number | null = null;
  for (let level = search.start; ; level = Math.min(level * 2, search.max)) {
    if (await test(level)) passed = level;
    else {
      failed = level;
      break;
    }
    if (level >= search.max) break;
  }
  if (passed === null || failed === null) return { answer: passed, failsAt: failed, probes };
  let [lo, hi] = [passed, failed];
  const settled = (): boolean => (search.integer ? hi - lo <= 1 : (hi - lo) / lo <= search.tolerance);
  while (!settled()) {
    const mid: number = search.integer ? Math.floor((lo + hi) / 2) : (lo + hi) / 2;
    if (await test(mid)) lo = mid;
    else hi = mid;
  }
  return { answer: lo, failsAt: hi, probes };
}
