import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const BENCHMARKS_MD = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));

/** The middle value (the upper middle of an even count): benches run a case a few times and report the typical run. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `| a | b |` */
export function tableRow(cells: Array<string | number>): string {
  return `| ${cells.join(' | ')} |`;
}

/** The machine's CPU time so far (Linux's /proc/stat, in ticks): in all, and stolen by the hypervisor for other guests. */
function cpuTicks(): { total: number; steal: number } | undefined {
  try {
    // cpu user nice system idle iowait irq softirq steal (guest time is counted in user)
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: ticks.reduce((sum, t) => sum + t, 0), steal: ticks[7] ?? 0 };
  } catch {
    return undefined; // not Linux
  }
}

let ticksBefore = cpuTicks();

/**
 * Where and with what a figure was measured, for its row. The load average says how busy
 * the machine was with other work; steal, where the system reports it, is the share of
 * the CPU time since the last call (or the bench's start) that a virtual machine's host
 * gave to other guests: on a shared host it is what makes one run's tail unlike the next.
 */
export function measuredOn(): string {
  const ticks = cpuTicks();
  const spent = ticks && ticksBefore ? ticks.total - ticksBefore.total : 0;
  const steal = spent > 0 ? `, steal ${((100 * (ticks!.steal - ticksBefore!.steal)) / spent).toFixed(0)}%` : '';
  ticksBefore = ticks;
  return `${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load ${loadavg()[0]!.toFixed(1)}${steal}`;
}

/**
 * Puts `row` into the table between `<!-- marker:start -->` and `<!-- marker:end -->`
 * in BENCHMARKS.md, replacing the row that has the same first `keyCells` cells.
 * Before/after comparisons keep one row per code version, so a rerun replaces only
 * its own rows.
 */
export async function upsertRow(marker: string, row: string, keyCells = 1): Promise<void> {
  const text = await readFile(BENCHMARKS_MD, 'utf8');
  const section = new RegExp(`(<!-- ${marker}:start -->\\n)([\\s\\S]*?)(<!-- ${marker}:end -->)`);
  const match = section.exec(text);
  if (!match) throw new Error(`BENCHMARKS.md has no ${marker} section`);
  const key = (line: string): string =>
    line
      .split('|')
      .slice(1, keyCells + 1)
      .map((cell) => cell.trim())
      .join('|');
  const lines = match[2]!.trimEnd().split('\n');
  const at = lines.findIndex((line) => line.startsWith('|') && key(line) === key(row));
  if (at >= 0) lines[at] = row;
  else lines.push(row);
  await writeFile(
    BENCHMARKS_MD,
    text.replace(section, (_, start: string, _body, end: string) => `${start}${lines.join('\n')}\n${end}`),
  );
}
