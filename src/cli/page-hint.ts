import type { OutputFormat } from '../report/output-formats.js';

/**
 * After `Wrote: ...`, when `--outputs` left the HTML page out: the command that writes
 * it from the report just written (nothing is run again), the folder quoted for a
 * shell where it needs to be.
 */
export function pageHint(outputs: readonly OutputFormat[], dir: string): string[] {
  if (outputs.includes('html')) return [];
  const folder = /^[\w./:@-]+$/.test(dir) ? dir : `'${dir.replace(/'/g, `'\\''`)}'`;
  return [`No page written (--outputs left html out); to write it: npx voxbench report render ${folder} --outputs html`];
}
