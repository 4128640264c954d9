import { printable } from '../util/printable.js';
import { corpusCell, findings, LEGEND, metricCells, serverPairs, sideRows } from './compare-text.js';
import type { Comparison, Verdict } from './compare-types.js';

/** SGR colours: green for better, red for worse, yellow for warnings; a quantity that is neither better nor worse stays plain. */
const PAINT: Partial<Record<Verdict | 'warning', string>> = { better: '32', worse: '31', warning: '33' };

/**
 * The comparison as console text: who A and B are, what makes them differ, each
 * side's counts, throughput and corpus figures, the verdict on the headline figures,
 * then every metric. With `color` (for a terminal), verdicts are coloured by the
 * catalog's direction of goodness, never by the sign of the difference.
 */
export function renderComparison(c: Comparison, { color = false } = {}): string {
  const paint = (text: string, kind: Verdict | 'warning'): string => (color && PAINT[kind] ? `\x1b[${PAINT[kind]}m${text}\x1b[39m` : text);
  const sides = sideRows(c);
  const side = (name: 'a' | 'b') => {
    const s = c[name];
    return [
      name.toUpperCase(),
      s.label,
      String(s.sessions.total),
      String(s.sessions.completed),
      String(s.sessions.failed),
      sides[name].errorRate,
      sides[name].audioSPerWallS,
      sides[name].sessionsPerS,
      ...c.corpus.map((k) => corpusCell(k, name)),
    ];
  };
  const verdict = findings(c);
  const width = Math.max(0, ...verdict.map((f) => f.verdict.length));
  // `--percentiles` replaces the p50 and p95 columns with the statistics chosen; the difference stays that of the medians.
  const chosen = c.metrics[0]?.statistics?.map((s) => s.name);
  const metricRows = c.metrics.map((m) => {
    const cells = metricCells(m);
    return { cells: [m.metric, m.unit, ...(cells.statistics ?? [cells.p50, cells.p95]), cells.delta, cells.ci, m.verdict], verdict: m.verdict };
  });
  const statisticHeads = (chosen ?? ['p50', 'p95']).map((name) => `${name} A → B`);
  return [
    ...(['a', 'b'] as const).map((name) => {
      const s = c[name];
      return printable(
        `${name.toUpperCase()}: ${s.label} · ${s.model} · ${s.target} · ${s.startedAt} · ${s.protocol} · pace ${s.pace} · ${s.dataset.data} (${s.dataset.count} sample${s.dataset.count === 1 ? '' : 's'})`,
      );
    }),
    ...c.warnings.map((w) => paint(printable(`warning: ${w}`), 'warning')),
    '',
    ...table(
      ['', 'level', 'sessions', 'completed', 'failed', 'error rate', 'audio s/s', 'sessions/s', ...c.corpus.map((k) => `${k.metric} [95% CI]`)],
      [side('a'), side('b')].map((cells) => ({ cells })),
    ),
    '',
    verdict.length > 0 ? 'Verdict, B against A (headline figures):' : 'Verdict: no headline figure has values on both sides.',
    ...verdict.map((f) => `  ${paint(f.verdict.padEnd(width), f.verdict)}  ${printable(f.text)}`),
    '',
    // The Δ and the verdict are coloured.
    ...table(['metric', 'unit', ...statisticHeads, 'Δ p50', '95% CI', 'B is'], metricRows, paint, [statisticHeads.length + 2, statisticHeads.length + 4]),
    ...serverRows(c),
    '',
    LEGEND,
  ].join('\n');
}

/** The server's scraped series side by side (`--scrape`), where either side has them: mean and max over each level, A and B to the same decimals. */
function serverRows(c: Comparison): string[] {
  if (!c.a.server && !c.b.server) return [];
  return [
    '',
    ...table(
      ['server series (scraped)', 'mean A → B', 'max A → B'],
      serverPairs(c).map((p) => ({ cells: [p.series, p.mean, p.max] })),
    ),
  ];
}

/** Aligned columns; `paint` colours the `painted` columns of a row by its verdict, after padding, so escapes never skew the widths. */
function table(
  head: string[],
  rows: Array<{ cells: string[]; verdict?: Verdict }>,
  paint?: (text: string, kind: Verdict) => string,
  painted: number[] = [],
): string[] {
  const all = [head, ...rows.map((r) => r.cells)].map((cells) => cells.map(printable));
  const widths = head.map((_, i) => Math.max(...all.map((cells) => cells[i]!.length)));
  return all.map((cells, row) => {
    const verdict = rows[row - 1]?.verdict;
    return cells
      .map((cell, i) => {
        const padded = i === cells.length - 1 ? cell : cell.padEnd(widths[i]!);
        return paint && verdict && painted.includes(i) ? paint(padded, verdict) : padded;
      })
      .join('  ')
      .trimEnd();
  });
}
