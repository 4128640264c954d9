import { basename } from 'node:path';

/**
 * After `Wrote: ...`, when the outputs left the HTML page out: the command that writes
 * it from the report just written (nothing is run again), the folder quoted for a
 * shell where it needs to be.
 */
export function pageHint(written: readonly string[], dir: string): string[] {
  if (written.some((path) => basename(path) === 'report.html')) return [];
  const folder = /^[\w./:@-]+$/.test(dir) ? dir : `'${dir.replace(/'/g, `'\\''`)}'`;
  return [`No page written (--outputs left html out); to write it: npx voxbench report render ${folder} --outputs html`];
}
