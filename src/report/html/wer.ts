import { headlineLatencies, metricsOf } from '../picks.js';
import type { Report } from '../schema.js';
import type { ChartSpec } from './chart-spec.js';
import { evenly, round } from './downsample.js';
import { benchmarksByLevel } from '../levels.js';
import { html, type Html } from './markup.js';
import { measuredCompleted, metricTitle } from './metrics.js';
import { levelColors } from './palette.js';
import { chartFigure, legend, note, table, type Section } from './section.js';
import { formatPercent } from './format.js';
import type { Benchmark } from '../schema.js';

/** Points per level: a scatter of thousands of turns reads the same at this density. */
const POINTS_PER_LEVEL = 500;

/** Does accuracy pay for speed? Each turn's WER against its latency, one colour per level. */
export function werSection(report: Report): Section {
  const section = { id: 'wer', title: 'WER against latency' };
  const levels = benchmarksByLevel(report);
  // The per-turn quality figure (WER), against the first two headline latencies (when text starts, how long the final takes after speech).
  const WER = metricsOf(report, 'quality').find((d) => d.scope === 'input')?.name ?? '';
  const AGAINST = headlineLatencies(report)
    .filter((d) => d.scope === 'input')
    .slice(0, 2)
    .map((d) => d.name);
  const hasWer = levels.some((b) => b.sessions.some((s) => s.metrics.inputs.some((t) => t[WER] !== undefined)));
  if (!hasWer) {
    return {
      ...section,
      charts: [],
      body: note('No word error rate in this report: the dataset had no reference transcripts, or this voxbench version does not score them.'),
    };
  }
  const colors = levelColors(levels.length);
  const sessions = levels.map((b) => measuredCompleted(b.sessions));
  const charts: ChartSpec[] = AGAINST.map((latency) => ({
    id: `wer-${latency}`,
    x: { label: latency, unit: 'ms' },
    y: { label: 'WER', unit: '%', fromZero: true },
    rules: [],
    legend: false,
    series: levels.flatMap((b, i) => {
      const turns = evenly(
        sessions[i]!.flatMap((s) =>
          s.metrics.inputs.flatMap((t) => (t[WER] !== undefined && t[latency] !== undefined ? [{ wer: t[WER], at: t[latency] }] : [])),
        ),
        POINTS_PER_LEVEL,
      );
      return turns.length === 0
        ? []
        : [
            {
              label: b.label,
              color: colors[i]!,
              style: 'points' as const,
              size: 6,
              x: turns.map((p) => round(p.at, 1)),
              y: turns.map((p) => round(p.wer * 100, 1)),
            },
          ];
    }),
  })).filter((c) => c.series.length > 0);
  return {
    ...section,
    charts,
    body: html`${corpusTable(levels)}
${note('One point per turn of a measured completed session.')}
${legend(levels.map((b, i) => ({ label: b.label, color: colors[i]! })))}
<div class="grid">${charts.map((c) => chartFigure(c, `WER against ${c.x.label}`, `${metricTitle(report, WER)} Against ${metricTitle(report, c.x.label)}`))}</div>`,
  };
}

/** Corpus WER with its interval, CER, the word edits and the normalizer of each level, then of each split and language where there are several. */
function corpusTable(levels: readonly Benchmark[]): Html {
  const rows = levels.flatMap((b) => {
    const q = b.summary.quality;
    const ci = q.werCi95 ? ` [${formatPercent(q.werCi95[0])}, ${formatPercent(q.werCi95[1])}]` : '';
    const groups = (['split', 'language'] as const).flatMap((by) => {
      const entries = Object.entries(by === 'split' ? q.bySplit : q.byLanguage);
      return entries.length < 2
        ? []
        : entries.map(([name, g]) => [b.label, `${by} ${name}`, String(g.turns), formatPercent(g.wer), formatPercent(g.cer), '', g.normalizer]);
    });
    return [
      [
        b.label,
        'all turns',
        String(q.turns),
        `${formatPercent(q.wer)}${ci}`,
        formatPercent(q.cer),
        `${q.substitutions} / ${q.deletions} / ${q.insertions}`,
        q.normalizer,
      ],
      ...groups,
    ];
  });
  return table(
    [
      'level',
      'group',
      'turns',
      { label: 'corpus WER [95% CI]', title: 'Word errors pooled over turns, over reference words; the interval from 1000 resamples of the turns (seed 1).' },
      'CER',
      { label: 'S / D / I', title: 'Word substitutions, deletions and insertions, pooled.' },
      'normalizer',
    ],
    rows,
    'quality',
  );
}
