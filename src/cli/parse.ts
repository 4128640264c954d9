import { InvalidArgumentError } from '@commander-js/extra-typings';

/** Exit codes; documented in the README. */
export const EXIT = { ok: 0, internal: 1, usage: 2, nothingCompleted: 3, interrupted: 130 } as const;

export function int(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number.');
  return n;
}

export function num(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a non-negative number.');
  return n;
}

/** A number in [0, 1]. */
export function fraction(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a number from 0 to 1.');
  return n;
}
