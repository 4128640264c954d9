import type { Unit } from '../metrics/catalog.js';
import { fixed } from './fixed.js';

/**
 * Figures in the text outputs, by the catalog's unit, so a unit the catalog adds reads
 * right everywhere without a case here: times to 0.1 ms, ratios to 0.001, counts and
 * bytes whole, and any other unit (a rate such as characters per second) to 0.01.
 */
function decimals(unit: Unit): number {
  switch (unit) {
    case 'ms':
      return 1;
    case 'ratio':
      return 3;
    case 'count':
    case 'bytes':
      return 0;
    default:
      return 2;
  }
}

/** A figure in a table whose unit has a column of its own: `166.2`, `0.291`, `41.59`. */
export function cellText(value: number, unit: Unit): string {
  return fixed(decimals(unit) === 0 ? Math.round(value) : value, decimals(unit));
}

/**
 * A figure in a sentence, with its unit: `166 ms` (whole from 100 ms), `0.291` (ratios
 * and counts need none), `41.59 chars/s`.
 */
export function figureText(value: number, unit: Unit): string {
  if (unit === 'ms') return `${fixed(value, Math.abs(value) >= 100 ? 0 : 1)} ms`;
  const text = cellText(value, unit);
  return unit === 'ratio' || unit === 'count' || text === 'n/a' ? text : `${text} ${unit}`;
}
