import type { Unit } from '../metrics/catalog.js';
import type { Comparison, CorpusComparison, Estimate, MetricComparison, Verdict } from './compare-types.js';

/**
 * A comparison in words and numbers, as the console and compare.html both print it.
 * Values read against each other (A and B, their difference and its interval) share
 * one number of decimals, enough for 3 significant digits of every value and 2 of
 * every difference, so a difference shown is visible in the values shown
 * (`0.995 → 1.048`, not `0.995 → 1.0` beside a Δ of +0.053).
 */
const MAX_DECIMALS = 6;

export function decimalsFor(values: readonly number[], differences: readonly number[] = []): number {
  const need = (v: number, digits: number): number => (v === 0 || !Number.isFinite(v) ? 0 : digits - 1 - Math.floor(Math.log10(Math.abs(v))));
  return Math.min(MAX_DECIMALS, Math.max(0, ...values.map((v) => need(v, 3)), ...differences.map((d) => need(d, 2))));
}

/** Fixed decimals; a value that rounds to zero is written without a sign, never `-0.000`. */
export function fixed(value: number, decimals: number): string {
  const text = value.toFixed(decimals);
  return /^-[0.]+$/.test(text) ? text.slice(1) : text;
}

/** A difference: `+` before what rounds above zero, `-` below, no sign on zero. */
export function signed(value: number, decimals: number): string {
  const text = fixed(value, decimals);
  return /^[0.]+$/.test(text) || text.startsWith('-') ? text : `+${text}`;
}

function interval([lo, hi]: readonly [number, number], decimals: number): string {
  return `[${fixed(lo, decimals)}, ${fixed(hi, decimals)}]`;
}

/** A unit after a number in prose; tables have a unit column instead. */
function unitSuffix(unit: Unit): string {
  return unit === 'ms' ? ' ms' : unit === 'bytes' ? ' B' : '';
}

export const LEGEND =
  'Δ = B − A over measured completed sessions; 95% intervals from a bootstrap of whole sessions (of turns for corpus WER and CER). ' +
  'B is better or worse by the metric catalog’s direction (lower latency, higher rtfx), different where neither direction is better (bytes received), unclear where the interval holds 0, ' +
  'same where it is 0 to 0 (no change), workload where the figure describes what the client sent (audio_ms, chars), which judges no server.';

/** A metric's table cells, at one number of decimals; `statistics`: the chosen statistics' cells, A → B, in order. */
export function metricCells(m: MetricComparison): { p50: string; p95: string; statistics?: string[]; delta: string; ci: string } {
  const chosen = m.statistics ?? [];
  const d = decimalsFor(
    [m.p50A, m.p50B, m.p95A, m.p95B, ...chosen.flatMap((s) => [s.a, s.b])],
    [m.deltaP50, m.p95B - m.p95A, m.ci95[1] - m.ci95[0], ...chosen.map((s) => s.b - s.a)],
  );
  return {
    p50: `${fixed(m.p50A, d)} → ${fixed(m.p50B, d)}`,
    p95: `${fixed(m.p95A, d)} → ${fixed(m.p95B, d)}`,
    ...(m.statistics ? { statistics: chosen.map((s) => `${fixed(s.a, d)} → ${fixed(s.b, d)}`) } : {}),
    delta: signed(m.deltaP50, d),
    ci: interval(m.ci95, d),
  };
}

/** The decimals of a corpus figure: its values on both sides, their intervals and difference. */
function corpusDecimals(c: CorpusComparison): number {
  const sides = [c.a, c.b].filter((e): e is Estimate => e !== null);
  const estimates = c.delta ? [...sides, c.delta] : sides;
  return decimalsFor(
    sides.map((e) => e.value),
    [...estimates.map((e) => e.ci95[1] - e.ci95[0]), ...(c.delta ? [c.delta.value] : [])],
  );
}

/** A corpus figure of one side with its interval, e.g. `0.052 [0.041, 0.063]`; n/a without one. */
export function corpusCell(c: CorpusComparison, side: 'a' | 'b'): string {
  const estimate = c[side];
  const d = corpusDecimals(c);
  return estimate ? `${fixed(estimate.value, d)} ${interval(estimate.ci95, d)}` : 'n/a';
}

/** A verdict on one headline figure, in words. */
export interface Finding {
  metric: string;
  verdict: Verdict;
  text: string;
}

/** The verdict: every headline metric and every corpus figure both sides have, B against A, with the intervals. */
export function findings(c: Comparison): Finding[] {
  const medians = c.metrics
    .filter((m) => m.headline)
    .map((m): Finding => {
      const cells = metricCells(m);
      const unit = unitSuffix(m.unit);
      return { metric: m.metric, verdict: m.verdict, text: `${m.metric} p50 ${cells.p50}${unit}, Δ ${cells.delta}${unit} ${cells.ci}` };
    });
  const corpus = c.corpus.flatMap((k): Finding[] => {
    if (!k.delta || !k.a || !k.b) return [];
    const d = corpusDecimals(k);
    return [
      {
        metric: k.metric,
        verdict: k.delta.verdict,
        text: `${k.metric} ${fixed(k.a.value, d)} → ${fixed(k.b.value, d)}, Δ ${signed(k.delta.value, d)} ${interval(k.delta.ci95, d)}`,
      },
    ];
  });
  return [...medians, ...corpus];
}

/** The overall figures of each side as table cells, each column at the decimals its two values need. */
export function sideRows(c: Comparison): Record<'a' | 'b', Record<'errorRate' | 'audioSPerWallS' | 'sessionsPerS', string>> {
  const column = (value: (side: Comparison['a']) => number | null, suffix = ''): [string, string] => {
    const [x, y] = [value(c.a), value(c.b)];
    const d = decimalsFor([x ?? 0, y ?? 0], x !== null && y !== null ? [y - x] : []);
    const text = (v: number | null): string => (v === null ? 'n/a' : `${fixed(v, d)}${suffix}`);
    return [text(x), text(y)];
  };
  const errorRate = column((s) => (s.errorRate === null ? null : s.errorRate * 100), '%');
  const audio = column((s) => s.throughput.audioSPerWallS);
  const sessions = column((s) => s.throughput.sessionsPerS);
  return {
    a: { errorRate: errorRate[0], audioSPerWallS: audio[0], sessionsPerS: sessions[0] },
    b: { errorRate: errorRate[1], audioSPerWallS: audio[1], sessionsPerS: sessions[1] },
  };
}

/** Two sides' values as `A → B` to the same decimals; a side without one is `n/a`. */
export function pairText(a: number | undefined, b: number | undefined): string {
  const decimals = decimalsFor([a, b].filter((v): v is number => v !== undefined));
  const text = (v: number | undefined): string => (v === undefined ? 'n/a' : fixed(v, decimals));
  return `${text(a)} → ${text(b)}`;
}

/** The server's scraped series of either side (`--scrape`), each with its mean and max as `A → B`; none when neither side scraped. */
export function serverPairs(c: Comparison): Array<{ series: string; mean: string; max: string }> {
  const names = [...new Set([...(c.a.server ?? []), ...(c.b.server ?? [])].map((f) => f.series))];
  const pair = (name: string, stat: 'mean' | 'max'): string => {
    const [a, b] = (['a', 'b'] as const).map((side) => c[side].server?.find((f) => f.series === name)?.[stat]);
    return pairText(a, b);
  };
  return names.map((series) => ({ series, mean: pair(series, 'mean'), max: pair(series, 'max') }));
}

/** Where both sides have sessions that started cold: the compared metrics with a cold or warm median, each start's `A → B` p50 (at most `most`). */
export function coldWarmPairs(c: Comparison, most = 3): Array<{ metric: MetricComparison; cold: string; warm: string }> {
  const [a, b] = [c.a.coldWarm, c.b.coldWarm];
  if (!a || !b) return [];
  const p50 = (start: 'cold' | 'warm', metric: string): string => pairText(a[start].metrics[metric]?.p50, b[start].metrics[metric]?.p50);
  return c.metrics
    .filter((m) => m.headline && [a, b].some((side) => side.cold.metrics[m.metric] || side.warm.metrics[m.metric]))
    .slice(0, most)
    .map((metric) => ({ metric, cold: p50('cold', metric.metric), warm: p50('warm', metric.metric) }));
}
