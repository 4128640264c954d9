import { describeMetrics, METRICS } from '../metrics/catalog.js';
import { spanText } from './picks.js';
import { poolMetricValues } from '../metrics/compute.js';
import { percentile } from '../metrics/stats.js';
import { seededRandom } from '../random.js';
import { ReportError } from './recompute.js';
import type { Benchmark, Report } from './schema.js';

/** One metric of two benchmarks side by side: medians and tails, and how sure the difference is. */
export interface MetricComparison {
  metric: string;
  unit: string;
  countA: number;
  countB: number;
  p50A: number;
  p50B: number;
  p95A: number;
  p95B: number;
  /** B − A of the medians, with a 95% bootstrap interval. */
  deltaP50: number;
  ci95: [number, number];
}

export interface Comparison {
  a: { label: string; startedAt: string; model: string; target: string };
  b: { label: string; startedAt: string; model: string; target: string };
  resamples: number;
  metrics: MetricComparison[];
}

const RESAMPLES = 1000;

/**
 * Compares the first benchmark of two reports (or the levels named `level`) metric by
 * metric over their measured completed sessions. The interval of the median's
 * difference comes from a percentile bootstrap with a fixed seed, so it is
 * reproducible; when it excludes 0 the difference is unlikely to be noise. Sessions,
 * not values, are resampled: the gaps or words of one session are not independent,
 * and treating them as such would make intervals too narrow.
 */
export function compareReports(a: Report, b: Report, level?: string): Comparison {
  const pick = (report: Report): Benchmark => {
    const found = level === undefined ? report.benchmarks[0] : report.benchmarks.find((x) => x.label === level);
    if (!found) throw new ReportError(level === undefined ? 'a report has no benchmark to compare' : `--level ${level}: not a level of both reports (levels: ${report.benchmarks.map((b) => b.label).join(', ')})`);
    return found;
  };
  const [benchA, benchB] = [pick(a), pick(b)];
  // Each session's values of every metric.
  const [sessionsA, sessionsB] = [benchA, benchB].map((bench) =>
    bench.sessions.filter((s) => s.phase === 'measured' && s.outcome.status === 'completed').map((s) => poolMetricValues([s.timeline])),
  );
  const random = seededRandom(1);
  const metrics = METRICS.flatMap((m): MetricComparison[] => {
    const perSessionA = sessionsA!.map((s) => s[m.name] ?? []);
    const perSessionB = sessionsB!.map((s) => s[m.name] ?? []);
    const x = sorted(perSessionA.flat());
    const y = sorted(perSessionB.flat());
    if (x.length === 0 || y.length === 0) return [];
    const median = (sessions: number[][]): number => percentile(sorted(resample(sessions, random).flat()), 50);
    // A resample of sessions that all lack the metric has no median; it is left out.
    const deltas = Float64Array.from({ length: RESAMPLES }, () => median(perSessionB) - median(perSessionA)).filter(Number.isFinite).sort();
    return [{
      metric: m.name, unit: m.unit, countA: x.length, countB: y.length,
      p50A: percentile(x, 50), p50B: percentile(y, 50), p95A: percentile(x, 95), p95B: percentile(y, 95),
      deltaP50: percentile(y, 50) - percentile(x, 50),
      ci95: [percentile(deltas, 2.5), percentile(deltas, 97.5)],
    }];
  });
  const side = (report: Report, bench: Benchmark) => ({ label: bench.label, startedAt: report.startedAt, model: report.config.model, target: report.config.target });
  return { a: side(a, benchA), b: side(b, benchB), resamples: RESAMPLES, metrics };
}

/** The comparison as a console table. */
export function renderComparison(c: Comparison): string {
  const f = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toFixed(3));
  const rows = c.metrics.map((m) => [m.metric, m.unit, `${f(m.p50A)} → ${f(m.p50B)}`, `${f(m.p95A)} → ${f(m.p95B)}`, `${m.deltaP50 >= 0 ? '+' : ''}${f(m.deltaP50)}`, `[${f(m.ci95[0])}, ${f(m.ci95[1])}]`, m.ci95[0] > 0 || m.ci95[1] < 0 ? 'yes' : 'no']);
  const head = ['metric', 'unit', 'p50 A → B', 'p95 A → B', 'Δ p50', '95% CI', 'significant'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [
    `A: ${c.a.label} · ${c.a.model} · ${c.a.target} · ${c.a.startedAt}`,
    `B: ${c.b.label} · ${c.b.model} · ${c.b.target} · ${c.b.startedAt}`,
    `Δ = B − A; 95% CI of Δ p50 from a ${c.resamples}-resample bootstrap`,
    '',
    line(head),
    ...rows.map(line),
  ].join('\n');
}

/** The comparison as a self-contained HTML page; every string from a report is escaped. */
export function renderComparisonHtml(c: Comparison): string {
  const esc = (text: string): string => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const f = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toFixed(3));
  const description = Object.fromEntries(describeMetrics().map((m) => [m.name, `${spanText(m)}. ${m.description}`]));
  const rows = c.metrics
    .map((m) => {
      const significant = m.ci95[0] > 0 || m.ci95[1] < 0;
      return `<tr><td title="${esc(description[m.metric] ?? '')}">${esc(m.metric)}</td><td>${esc(m.unit)}</td><td>${f(m.p50A)}</td><td>${f(m.p50B)}</td><td>${f(m.p95A)}</td><td>${f(m.p95B)}</td>` +
        `<td class="${significant ? (m.deltaP50 > 0 ? 'worse' : 'better') : ''}">${m.deltaP50 >= 0 ? '+' : ''}${f(m.deltaP50)}</td><td>[${f(m.ci95[0])}, ${f(m.ci95[1])}]</td><td>${m.countA} / ${m.countB}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>voxbench compare</title>
<style>body{font:14px/1.5 system-ui,sans-serif;margin:2rem;color:#1d2733}table{border-collapse:collapse}td,th{padding:.3rem .7rem;border-bottom:1px solid #e3e8ef;text-align:right}td:first-child,th:first-child{text-align:left}.worse{color:#b42318;font-weight:600}.better{color:#067647;font-weight:600}p{color:#4b5565}</style>
</head><body>
<h1>voxbench: A vs B</h1>
<p>A: ${esc(c.a.label)} · ${esc(c.a.model)} · ${esc(c.a.target)} · ${esc(c.a.startedAt)}<br>B: ${esc(c.b.label)} · ${esc(c.b.model)} · ${esc(c.b.target)} · ${esc(c.b.startedAt)}</p>
<p>Δ = B − A over measured completed sessions. The 95% interval of Δ p50 comes from a ${c.resamples}-resample bootstrap; a coloured Δ is one whose interval excludes 0 (for latencies, red is slower).</p>
<table><thead><tr><th>metric</th><th>unit</th><th>p50 A</th><th>p50 B</th><th>p95 A</th><th>p95 B</th><th>Δ p50</th><th>95% CI</th><th>n A / B</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}

function sorted(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** A bootstrap resample: as many items, drawn with replacement. */
function resample<T>(items: readonly T[], random: () => number): T[] {
  return Array.from({ length: items.length }, () => items[Math.floor(random() * items.length)]!);
}
