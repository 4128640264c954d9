import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * What every page inlines, so it needs nothing but itself, each read once at the
 * first render. The chart library comes from node_modules; its files carry their own
 * licence header.
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

let script: string | undefined;

/**
 * The page script: the page modules (./page/) bundled by scripts/bundle-page.ts into
 * one classic script beside this module when the package is built.
 */
export function pageScript(): string {
  script ??= readFileSync(new URL('./page-script.js', import.meta.url), 'utf8');
  return script;
}
