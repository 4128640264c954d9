import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The chart library, read from node_modules at render time and inlined, so the
 * page needs nothing but itself. Its files carry their own licence header.
 */
const require = createRequire(import.meta.url);

export interface ChartLibrary {
  script: string;
  style: string;
}

let cached: ChartLibrary | undefined;

export function chartLibrary(): ChartLibrary {
  cached ??= {
    script: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    style: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
  return cached;
}
