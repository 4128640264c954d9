import { optionsError, type OptionName } from './errors.js';

/** The checks every number option shares; each names the option it refuses. */

export function positive(name: OptionName, value: number, integer: boolean): void {
  if (!(value > 0) || (integer && !Number.isInteger(value))) {
    throw optionsError`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`;
  }
}

export function nonNegative(name: OptionName, value: number): void {
  if (!(value >= 0)) throw optionsError`${name} must be zero or more, got ${value}`;
}

/** The longest wait a Node.js timer can hold (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A duration a timer will wait, `ms`, given in `unit`. */
export function timerLimit(name: OptionName, ms: number, unit: 's' | 'ms'): void {
  if (ms > MAX_TIMER_MS) {
    const most = unit === 's' ? `${Math.floor(MAX_TIMER_MS / 1000)} s` : `${MAX_TIMER_MS} ms`;
    throw optionsError`${name} is at most ${most} (about 24 days), got ${unit === 's' ? ms / 1000 : ms}`;
  }
}
