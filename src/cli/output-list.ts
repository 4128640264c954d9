import { InvalidArgumentError } from '@commander-js/extra-typings';
import { OUTPUT_FORMATS, type OutputFormat } from '../report/output-formats.js';

/**
 * A comma-separated list of output formats, e.g. `json,csv,md`. Apart from parse.ts:
 * the formats' module loads every renderer, which serve and dataset need not load.
 */
export function outputList(value: string): OutputFormat[] {
  const formats = value.split(',').map((f) => f.trim());
  const unknown = formats.filter((f) => !(OUTPUT_FORMATS as readonly string[]).includes(f));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown format ${unknown.join(', ')}; choose from ${OUTPUT_FORMATS.join(', ')}.`);
  return formats as OutputFormat[];
}
