import { coldWarmPairs, corpusCell, findings, LEGEND, metricCells, serverPairs, sideRows, type Finding } from './compare-text.js';
import { coldRule } from './cold-warm.js';
import type { Comparison, MetricComparison, Verdict } from './compare-types.js';
import type { ChartSpec } from './html/chart-spec.js';
import { html, type Html } from './html/markup.js';
import { renderPage } from './html/page.js';
import { COLORS } from './html/palette.js';
import { chartFigure, legend, note, table, type Section } from './html/section.js';

/** Chip classes of the report's page style, by verdict. */
const CHIP: Record<Verdict, string> = { better: 'pass', worse: 'fail', different: 'warn', unclear: 'muted', same: 'muted', workload: 'muted' };

/** A metric with both sides' distributions. */
type Charted = MetricComparison & { cdf: NonNullable<MetricComparison['cdf']> };

const STYLE = `
.better { color: var(--pass); font-weight: 600; }
.worse { color: var(--fail); font-weight: 600; }
.findings { list-style: none; padding: 0; margin: 8px 0 0; }
.findings li { margin: 3px 0; font-variant-numeric: tabular-nums; }
table.runs td { overflow-wrap: anywhere; }
.answer { margin-top: 12px; }
`;

/**
 * The comparison as a self-contained page, built like report.html (same page script,
 * chart specs and content security policy): the verdict on the headline figures with
 * their intervals, the warnings, each side's overall figures, CDFs of both sides for
 * every headline metric, every metric in a table, and, where the runs have them, the
 * servers' scraped series and cold and warm starts side by side. Every string from a report is
 * escaped by the `html` template; chart text is set with textContent.
 */
export function renderComparisonHtml(c: Comparison): string {
  return renderPage({
    title: `voxbench compare · ${c.a.model} vs ${c.b.model}`,
    heading: 'voxbench: A vs B',
    subtitle: `A: ${c.a.model} at ${c.a.label} · B: ${c.b.model} at ${c.b.label}`,
    sections: [verdictSection(c), distributionsSection(c), metricsSection(c), ...serverSection(c), ...coldWarmSection(c)],
    style: STYLE,
  });
}

function verdictSection(c: Comparison): Section {
  const found = findings(c);
  const sides = sideRows(c);
  const sideNames = ['a', 'b'] as const;
  const name = (side: 'a' | 'b'): Html => html`<strong>${side.toUpperCase()}</strong>`;
  return {
    id: 'verdict',
    title: 'Verdict',
    charts: [],
    // Warnings first: they say what the verdict may rest on besides the servers.
    body: html`${c.warnings.map((w) => html`<p class="callout">Warning: ${w}</p>`)}
<div class="answer"><p class="answer-text">${headline(found)}</p>
<ul class="findings">${found.map((f) => html`<li>${chip(f.verdict)} ${f.text}</li>`)}</ul></div>
<h3 class="subhead">Overall</h3>
${table(
  ['', 'level', 'sessions', 'completed', 'failed', 'error rate', 'audio s/s', 'sessions/s', ...c.corpus.map((k) => `${k.metric} [95% CI]`)],
  sideNames.map((side) => {
    const s = c[side];
    return [
      name(side),
      s.label,
      s.sessions.total,
      s.sessions.completed,
      s.sessions.failed,
      sides[side].errorRate,
      sides[side].audioSPerWallS,
      sides[side].sessionsPerS,
      ...c.corpus.map((k) => corpusCell(k, side)),
    ];
  }),
  'levels',
)}
<h3 class="subhead">Runs</h3>
${table(
  ['', 'model', 'target', 'protocol', 'pace', 'dataset', 'started'],
  sideNames.map((side) => {
    const s = c[side];
    return [
      name(side),
      s.model,
      s.target,
      `${s.protocol} (${s.task}, turn detection ${s.turnDetection})`,
      `${s.pace} in ${s.chunkMs} ms chunks`,
      `${s.dataset.data}: ${s.dataset.count} samples, ${s.dataset.fingerprint}`,
      s.startedAt,
    ];
  }),
  'runs',
)}
${note(LEGEND)}`,
  };
}

/** Which side is better on what, in one sentence. */
function headline(found: readonly Finding[]): string {
  if (found.length === 0) return 'No headline figure has values on both sides.';
  const on = (verdict: Verdict): string[] => found.filter((f) => f.verdict === verdict).map((f) => f.metric);
  const parts = [
    ['better', on('better')],
    ['worse', on('worse')],
    ['different', on('different')],
    ['no clear difference', on('unclear')],
    ['no change', on('same')],
  ] as const;
  return `B against A: ${parts
    .filter(([, metrics]) => metrics.length > 0)
    .map(([word, metrics]) => `${word} on ${metrics.join(', ')}`)
    .join('; ')}.`;
}

function chip(verdict: Verdict): Html {
  return html`<span class="chip ${CHIP[verdict]}">${verdict}</span>`;
}

function distributionsSection(c: Comparison): Section {
  const shown = c.metrics.filter((m): m is Charted => m.cdf !== undefined);
  const charts = shown.map(cdfChart);
  return {
    id: 'distributions',
    title: 'Headline distributions',
    charts,
    body:
      charts.length === 0
        ? note('No headline metric has values on both sides.')
        : html`${note('Cumulative distributions over measured completed sessions; dashed lines mark each side’s median.')}
${legend([
  { label: 'A', color: COLORS.sideA },
  { label: 'B', color: COLORS.sideB },
])}
<div class="grid">${shown.map((m, i) => chartFigure(charts[i]!, m.metric, m.description, html`p50 ${metricCells(m).p50} · <span class="${m.verdict}">${m.verdict}</span>`))}</div>`,
  };
}

function cdfChart(m: Charted): ChartSpec {
  return {
    id: `cdf-${m.metric}`,
    x: { label: m.metric, unit: m.unit === 'ms' ? 'ms' : '' },
    y: { label: 'at or below', unit: '%', min: 0, max: 100 },
    legend: false,
    series: [
      { label: 'A', color: COLORS.sideA, style: 'step', ...m.cdf.a },
      { label: 'B', color: COLORS.sideB, style: 'step', ...m.cdf.b },
    ],
    rules: [
      { axis: 'x', value: m.p50A, label: 'A p50', color: COLORS.sideA, dash: true },
      { axis: 'x', value: m.p50B, label: 'B p50', color: COLORS.sideB, dash: true },
    ],
  };
}

function metricsSection(c: Comparison): Section {
  return {
    id: 'metrics',
    title: 'Every metric',
    charts: [],
    body: table(
      ['metric', 'unit', 'p50 A → B', 'p95 A → B', 'Δ p50', '95% CI', 'n A / B', 'B is'],
      c.metrics.map((m) => {
        const cells = metricCells(m);
        return [
          html`<code title="${m.description}">${m.metric}</code>`,
          m.unit,
          cells.p50,
          cells.p95,
          html`<span class="${m.verdict}">${cells.delta}</span>`,
          cells.ci,
          `${m.countA} / ${m.countB}`,
          chip(m.verdict),
        ];
      }),
      'figures',
    ),
  };
}

/** The servers' scraped series (`--scrape`) side by side, where either run scraped. */
function serverSection(c: Comparison): Section[] {
  if (!c.a.server && !c.b.server) return [];
  const pairs = serverPairs(c);
  return [
    {
      id: 'server',
      title: 'Server series (scraped)',
      charts: [],
      body: html`${note('Each series’ mean and maximum over the level compared, A → B; n/a where one run did not scrape it.')}
${
  pairs.length === 0
    ? note('No series was scraped during the levels compared.')
    : table(
        ['series', 'mean A → B', 'max A → B'],
        pairs.map((p) => [html`<code>${p.series}</code>`, p.mean, p.max]),
        'figures',
      )
}`,
    },
  ];
}

/** The headline figures of sessions that started cold apart from warm ones, where both runs have cold sessions. */
function coldWarmSection(c: Comparison): Section[] {
  const pairs = coldWarmPairs(c);
  if (pairs.length === 0) return [];
  const [a, b] = [c.a.coldWarm!, c.b.coldWarm!];
  const rule = a.gapMs === b.gapMs ? coldRule(a.gapMs) : `A ${coldRule(a.gapMs)}; B ${coldRule(b.gapMs)}`;
  return [
    {
      id: 'cold-warm',
      title: 'Cold and warm starts',
      charts: [],
      body: html`${note(`Medians of the measured sessions by how they found the target (${rule}); cold sessions A → B: ${a.cold.sessions} → ${b.cold.sessions}, warm: ${a.warm.sessions} → ${b.warm.sessions}.`)}
${table(
  ['metric', 'unit', 'cold p50 A → B', 'warm p50 A → B'],
  pairs.map((p) => [html`<code title="${p.metric.description}">${p.metric.metric}</code>`, p.metric.unit, p.cold, p.warm]),
  'figures',
)}`,
    },
  ];
}
