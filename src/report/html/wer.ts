import { headlineLatencies, metricsOf } from '../picks.js';
import { resamplesText } from '../../metrics/bootstrap.js';
import type { Report } from '../schema.js';
import type { ChartSpec } from './chart-spec.js';
import { evenlyRanks, round } from './downsample.js';
import { benchmarksByLevel } from '../levels.js';
import { html, type Html } from './markup.js';
import { metricTitle } from './metrics.js';
import { measuredCompleted } from '../picks.js';
import { levelColors } from './palette.js';
import { chartFigure, legend, note, table, type Section } from './section.js';
import { formatPercent, isQualityRatio } from './format.js';
import { hasTag, type MetricDescription } from '../../metrics/catalog.js';
import { isSpeechTask } from '../../timeline/types.js';
import { inputNoun } from './workload.js';
import type { Benchmark, ReportSession } from '../schema.js';

/** Points per level: a scatter of thousands of turns reads the same at this density. */
const POINTS_PER_LEVEL = 500;

/**
 * The task's word error rate: corpus WER per level (the turns' transcripts for
 * transcription and speech to speech, the generated speech as a transcription server
 * heard it for speech generation), and where each input has its own, WER against the
 * headline latencies: does accuracy pay for speed?
 */
export function werSection(report: Report): Section {
  const levels = benchmarksByLevel(report);
  const quality = metricsOf(report, 'quality').filter(isQualityRatio);
  // The headline per-input WER (wer, tts_wer) and the corpus one (corpus_wer, tts_corpus_wer).
  const perInput = quality.find((d) => d.scope === 'input' && hasTag(d, 'headline', report.config.task));
  const corpus = quality.find((d) => d.scope === 'corpus');
  const scoredTurns = levels.some((b) => b.summary.quality.turns > 0);
  const corpusValues = corpus !== undefined && levels.some((b) => typeof b.summary.corpus[corpus.name] === 'number');
  const WER = perInput?.name ?? '';
  const hasWer = perInput !== undefined && levels.some((b) => b.sessions.some((s) => s.metrics.inputs.some((t) => t[WER] !== undefined)));
  const title = isSpeechTask(report.config.task) ? 'Intelligibility' : hasWer ? 'WER against latency' : 'Word error rate';
  const section = { id: 'wer', title };
  if (!scoredTurns && !corpusValues && !hasWer) {
    return {
      ...section,
      charts: [],
      body: note(
        isSpeechTask(report.config.task)
          ? 'No word error rate in this report: no generated speech was checked (--quality-sessions 0), or none of it came back.'
          : 'No word error rate in this report: the dataset had no reference transcripts, or this voxbench version does not score them.',
      ),
    };
  }
  const AGAINST = headlineLatencies(report)
    .filter((d) => d.scope === 'input')
    .slice(0, 2)
    .map((d) => d.name);
  const colors = levelColors(levels.length);
  const points = levels.map((b) => werPoints(measuredCompleted(b.sessions), WER, AGAINST));
  const charts: ChartSpec[] = AGAINST.map((latency, k) => ({
    id: `wer-${latency}`,
    x: { label: latency, unit: 'ms' },
    y: { label: 'WER', unit: '%', fromZero: true },
    rules: [],
    legend: false,
    series: levels.flatMap((b, i) => {
      const { wer, at } = points[i]![k]!;
      const ranks = evenlyRanks(wer.length, POINTS_PER_LEVEL);
      return ranks.length === 0
        ? []
        : [
            {
              label: b.label,
              color: colors[i]!,
              style: 'points' as const,
              size: 6,
              x: ranks.map((r) => round(at[r]!, 1)),
              y: ranks.map((r) => round(wer[r]! * 100, 1)),
            },
          ];
    }),
  })).filter((c) => c.series.length > 0);
  const unit = inputNoun(report.config.task);
  return {
    ...section,
    charts,
    body: html`${scoredTurns ? corpusTable(levels, inputNoun(report.config.task)) : speechTable(report, levels, corpus, perInput)}
${note(whatWasScored(report))}
${
  charts.length > 0
    ? html`${note(`One point per ${unit} of a measured completed session.`)}
${legend(levels.map((b, i) => ({ label: b.label, color: colors[i]! })))}
<div class="grid">${charts.map((c) => chartFigure(c, `${WER} against ${c.x.label}`, `${metricTitle(report, WER)} Against ${metricTitle(report, c.x.label)}`))}</div>`
    : ''
}`,
  };
}

/**
 * Per latency, the WER and the latency of each turn that has both, in session order: the
 * sessions' turns read once for every chart, not once per chart (a level can hold
 * 100,000 sessions).
 */
function werPoints(sessions: readonly ReportSession[], wer: string, against: readonly string[]): Array<{ wer: number[]; at: number[] }> {
  const points = against.map(() => ({ wer: [] as number[], at: [] as number[] }));
  for (const s of sessions) {
    for (const turn of s.metrics.inputs) {
      const value = turn[wer];
      if (value === undefined) continue;
      against.forEach((latency, k) => {
        const at = turn[latency];
        if (at === undefined) return;
        points[k]!.wer.push(value);
        points[k]!.at.push(at);
      });
    }
  }
  return points;
}

/** Whose words were scored against what. */
function whatWasScored(report: Report): string {
  switch (report.config.task) {
    case 's2s':
      return "The server's transcripts of the user's turns (its input transcription) against the reference transcripts.";
    case 'tts':
    case 'batch_tts': {
      const asr = report.config.speech?.quality?.asr;
      const where = asr?.target === 'built-in' ? 'on the built-in server' : `at ${asr?.target}`;
      const heard = asr ? ` by ${asr.protocol} ${asr.model} ${where}` : ' by a transcription server';
      return `The generated speech of the checked sessions, transcribed${heard}, against the text sent.`;
    }
    default:
      return 'Final transcripts against the reference transcripts.';
  }
}

/** Speech generation: corpus WER of the checked texts per level, and the spread of their own WER. */
function speechTable(report: Report, levels: readonly Benchmark[], corpus: MetricDescription | undefined, perInput: MetricDescription | undefined): Html {
  const rows = levels.map((b) => {
    const dist = perInput ? b.summary.metrics[perInput.name] : undefined;
    const value = corpus ? b.summary.corpus[corpus.name] : undefined;
    return [
      b.label,
      String(dist?.count ?? 0),
      typeof value === 'number' ? formatPercent(value) : 'n/a',
      dist ? formatPercent(dist.p50) : 'n/a',
      dist ? formatPercent(dist.p95) : 'n/a',
    ];
  });
  return table(
    [
      'level',
      'texts checked',
      { label: `corpus WER${corpus ? ` (${corpus.name})` : ''}`, title: corpus ? metricTitle(report, corpus.name) : '' },
      { label: `${perInput?.name ?? 'WER'} p50`, title: perInput ? metricTitle(report, perInput.name) : '' },
      `${perInput?.name ?? 'WER'} p95`,
    ],
    rows,
    'quality',
  );
}

/** Corpus WER with its interval, CER, the word edits and the normalizer of each level, then of each split and language where there are several. */
function corpusTable(levels: readonly Benchmark[], noun: string): Html {
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
        `all ${noun}s`,
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
      `${noun}s`,
      {
        label: 'corpus WER [95% CI]',
        title: `Word errors pooled over ${noun}s, over reference words; the interval from ${resamplesText(`${noun}s`)}.`,
      },
      'CER',
      { label: 'S / D / I', title: 'Word substitutions, deletions and insertions, pooled.' },
      'normalizer',
    ],
    rows,
    'quality',
  );
}
