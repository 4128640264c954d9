import { METRICS } from './catalog.js';
import { percentile, valuesTrustedFor } from './stats.js';

/**
 * Service-level objectives over the metric catalog.
 *
 *   slo       := aggregate op number
 *   aggregate := stat "(" metric ")" | "error_rate"
 *   stat      := "p" number  (a percentile, 0 < p <= 100: p50, p95, p99.9)
 *              | "mean" | "min" | "max"
 *   op        := "<" | "<=" | ">" | ">="
 *   metric    := a catalog name (`voxbench metrics`), in its own unit
 *
 * Whitespace is ignored. Examples: `p95(finalization_ms)<800`, `p99(ttft_ms) <= 1200`,
 * `mean(rtfx)>1`, `error_rate<0.01`. Values are computed over a benchmark's measured
 * completed sessions (error rate over its measured finished sessions); an SLO with no
 * data to judge fails.
 */
export interface Slo {
  /** The expression as given, for reports. */
  text: string;
  aggregate: { stat: 'percentile'; p: number; metric: string } | { stat: 'mean' | 'min' | 'max'; metric: string } | { stat: 'error_rate' };
  op: '<' | '<=' | '>' | '>=';
  threshold: number;
}

export interface SloResult {
  slo: string;
  value: number | null;
  pass: boolean;
}

export class SloError extends Error {
  override name = 'SloError';
}

const GRAMMAR = /^(?:(p\d+(?:\.\d+)?|mean|min|max)\(([a-z0-9_]+)\)|(error_rate))(<=|>=|<|>)(-?\d+(?:\.\d+)?)$/;

export function parseSlo(text: string): Slo {
  const match = GRAMMAR.exec(text.replace(/\s+/g, ''));
  if (!match) {
    throw new SloError(`"${text}" is not an SLO; write stat(metric) op number or error_rate op number, e.g. p95(ttft_ms)<800 or error_rate<0.01`);
  }
  const [, stat, metric, errorRate, op, threshold] = match;
  const slo = { text, op: op as Slo['op'], threshold: Number(threshold) };
  if (errorRate) return { ...slo, aggregate: { stat: 'error_rate' } };
  if (!METRICS.some((m) => m.name === metric)) {
    throw new SloError(`"${text}": unknown metric "${metric}"; known metrics: ${METRICS.map((m) => m.name).join(', ')}`);
  }
  if (stat!.startsWith('p')) {
    const p = Number(stat!.slice(1));
    if (!(p > 0 && p <= 100)) throw new SloError(`"${text}": percentile ${stat} must be above p0 and at most p100`);
    return { ...slo, aggregate: { stat: 'percentile', p, metric: metric! } };
  }
  return { ...slo, aggregate: { stat: stat as 'mean' | 'min' | 'max', metric: metric! } };
}

/** Values the SLOs' figures need before they mean much: the most any percentile named needs (`valuesTrustedFor`), else 1. */
export function valuesNeeded(slos: readonly Slo[]): number {
  return Math.max(1, ...slos.map(({ aggregate }) => (aggregate.stat === 'percentile' ? valuesTrustedFor(aggregate.p) : 1)));
}

/** Judges each SLO against pooled metric values and the error rate. */
export function evaluateSlos(slos: readonly Slo[], pooled: Record<string, readonly number[]>, errorRate: number | null): SloResult[] {
  return slos.map((slo) => {
    const value = measure(slo, pooled, errorRate);
    return { slo: slo.text, value, pass: value !== null && compare(value, slo.op, slo.threshold) };
  });
}

/** An SLO's figure: its statistic of the pooled values, or the error rate; null without data. */
export function measure(slo: Slo, pooled: Record<string, readonly number[]>, errorRate: number | null): number | null {
  const { aggregate } = slo;
  if (aggregate.stat === 'error_rate') return errorRate;
  const values = [...(pooled[aggregate.metric] ?? [])].filter(Number.isFinite).sort((a, b) => a - b);
  if (values.length === 0) return null;
  switch (aggregate.stat) {
    case 'percentile':
      return percentile(values, aggregate.p);
    case 'mean':
      return values.reduce((sum, v) => sum + v, 0) / values.length;
    case 'min':
      return values[0]!;
    case 'max':
      return values[values.length - 1]!;
  }
}

function compare(value: number, op: Slo['op'], threshold: number): boolean {
  switch (op) {
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
  }
}
