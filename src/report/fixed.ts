/**
 * A figure with `decimals` decimals, for any output: a value that is not finite (a
 * division by a zero duration upstream) reads as n/a, never as Infinity or NaN.
 */
export function fixed(value: number, decimals: number): string {
  return Number.isFinite(value) ? value.toFixed(decimals) : 'n/a';
}
