/**
 * Capacity search: the largest load level at which every SLO holds. It runs the
 * start level, doubles while levels pass, then bisects between the last level that
 * passed and the first that failed, until they are adjacent (integer levels, e.g.
 * concurrency) or within `tolerance` of each other relatively (rates). The answer is
 * bracketed: it passed, and `failsAt` failed.
 *
 * A level where the client could not keep up (`client`: the client's own lag was large
 * against what it measured, and could account for every SLO it missed) says nothing of the server, so
 * the search calls no capacity from it: it stops there, with the levels that passed
 * below it as the answer and that level as `clientBoundAt`, never as `failsAt`.
 */
export interface CapacitySearch {
  start: number;
  max: number;
  /** Levels are whole numbers (concurrency) or not (arrival rates). */
  integer: boolean;
  /** Rates: stop bisecting when (failsAt - answer) / answer is at most this. */
  tolerance: number;
}

/** How a level fared: its SLOs held, failed, or failed where the client was the bottleneck. */
export type ProbeVerdict = 'pass' | 'fail' | 'client';

export interface CapacityResult {
  /** Largest level that passed; null when even the start level failed (or could not be judged). */
  answer: number | null;
  /** Smallest level that failed; null when every level up to `max` passed, or the search stopped at a client-bound level. */
  failsAt: number | null;
  /** The level where the client could not keep up, where the search stopped; absent when none was. */
  clientBoundAt?: number;
  probes: Array<{ level: number; pass: boolean; clientBound?: true }>;
}

export async function searchCapacity(search: CapacitySearch, probe: (level: number) => Promise<boolean | ProbeVerdict>): Promise<CapacityResult> {
  const probes: CapacityResult['probes'] = [];
  let clientBoundAt: number | undefined;
  /** True: passed; false: failed; undefined: the client could not keep up, and the search ends. */
  const test = async (level: number): Promise<boolean | undefined> => {
    const given = await probe(level);
    const verdict = given === true ? 'pass' : given === false ? 'fail' : given;
    probes.push({ level, pass: verdict === 'pass', ...(verdict === 'client' ? { clientBound: true as const } : {}) });
    if (verdict === 'client') clientBoundAt = level;
    return verdict === 'client' ? undefined : verdict === 'pass';
  };
  const result = (answer: number | null, failsAt: number | null): CapacityResult => ({
    answer,
    failsAt,
    ...(clientBoundAt !== undefined ? { clientBoundAt } : {}),
    probes,
  });
  let passed: number | null = null;
  let failed: number | null = null;
  for (let level = search.start; ; level = Math.min(level * 2, search.max)) {
    const pass = await test(level);
    if (pass === undefined) return result(passed, null);
    if (pass) passed = level;
    else {
      failed = level;
      break;
    }
    if (level >= search.max) break;
  }
  if (passed === null || failed === null) return result(passed, failed);
  let [lo, hi] = [passed, failed];
  const settled = (): boolean => (search.integer ? hi - lo <= 1 : (hi - lo) / lo <= search.tolerance);
  while (!settled()) {
    const mid: number = search.integer ? Math.floor((lo + hi) / 2) : (lo + hi) / 2;
    const pass = await test(mid);
    if (pass === undefined) break;
    if (pass) lo = mid;
    else hi = mid;
  }
  return result(lo, hi);
}
