import type { MetricDescription } from '../../metrics/catalog.js';
import { definitionIn, headlineLatencies, metricsOf } from '../picks.js';
import type { LoadPlan } from '../../load/plan.js';
import type { LoadProfile } from '../../load/profiles.js';
import type { SloResult } from '../../metrics/slo.js';
import type { BenchmarkSummary } from '../../metrics/compute.js';
import type { Benchmark, Report } from '../schema.js';
import { formatFigure, formatPercent, formatPlain, formatNumber, formatSeconds, isQualityRatio } from './format.js';
import { stagesText } from '../../load/stages.js';
import { capacityNotes, capacityText } from '../capacity.js';
import { speakerLead } from '../speaker-lines.js';
import { benchmarksByLevel, loadAxis, loadLevel, type LoadAxis } from '../levels.js';
import { html, type Html } from './markup.js';
import { curveMetrics, ERROR_RATE_TITLE, metricTitle, readSlo, THROUGHPUT_TITLE } from './metrics.js';
import { inputNoun, protocolFact, throughputLabel, workloadFact } from './workload.js';
import { breakable, table, type Section } from './section.js';
import { plural } from '../../util/plural.js';
import type { TaskPart } from './parts.js';

/** The run's question (what was benchmarked, how) and its answer (capacity, SLO verdicts, headline figures). */
export function overviewSection(report: Report, part?: TaskPart): Section {
  const axis = loadAxis(report);
  const headline = headlineLevel(report);
  return {
    id: 'overview',
    title: 'Question and answer',
    charts: [],
    body: html`<div class="qa">
<dl class="facts">${(part ? partFacts(report, axis, part) : facts(report, axis)).map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>
<div class="answer"><p class="answer-text">${answer(report)}</p>${callouts(report)}</div>
</div>
<h3 class="subhead">Headline figures <span class="muted">at ${headline.benchmark.label}${headline.reason}</span></h3>
<div class="cards">${cards(report, headline.benchmark)}</div>
<h3 class="subhead">By load level</h3>
${levelsTable(report)}`,
  };
}

function facts(report: Report, axis: LoadAxis): Array<[string, string]> {
  const { config } = report;
  return [
    ['Target', `${config.target}${config.builtInServer ? ' (built-in simulated server)' : ''}`],
    ['Protocol', protocolFact(report)],
    ['Model', config.model],
    ['Workload', workloadFact(report)],
    ['Load', describePlan(config.plan, axis)],
    ['SLOs', config.slos.length > 0 ? config.slos.join(' · ') : 'none set'],
    ['Run', `${report.startedAt} · voxbench ${report.voxbenchVersion} · ${report.benchmarks.length} level${report.benchmarks.length === 1 ? '' : 's'}`],
  ];
}

/**
 * A part of a merge of different tasks: which part, its levels, and the configured
 * facts only where they are its own (the first run's); the other runs' configuration
 * is in their own reports. The workload is left out: the merged dataset pools every run's.
 */
function partFacts(report: Report, axis: LoadAxis, part: TaskPart): Array<[string, string]> {
  const all = facts(report, axis);
  const levels = report.benchmarks.map((b) => b.label).join(' · ');
  return [
    ['Part', `${part.task}: one of the ${part.tasks.length} tasks (${part.tasks.join(', ')}) of a merge of different runs`],
    ['Levels', levels],
    ...all.filter(([term]) => term !== 'Workload' && (part.own || term === 'Run')),
  ];
}

function describeProfile(profile: LoadProfile): string {
  switch (profile.kind) {
    case 'synchronous':
      return 'one session at a time';
    case 'concurrent':
      return `${profile.concurrency} concurrent sessions`;
    case 'constant':
      return `${formatPlain(profile.rate)} arrivals/s, evenly spaced${profile.maxOpen ? `, at most ${profile.maxOpen} open` : ''}`;
    case 'poisson':
      return `Poisson arrivals at ${formatPlain(profile.rate)}/s (seed ${profile.seed})${profile.maxOpen ? `, at most ${profile.maxOpen} open` : ''}`;
    case 'stages':
      return `sessions open at once ramped through ${stagesText(profile.stages)} (duration:target)`;
    case 'replay':
      return `recorded traffic replayed (${profile.label}): ${profile.arrivals.length} arrivals as recorded`;
    case 'rate-stages':
      return `${profile.seed === undefined ? '' : `Poisson (seed ${profile.seed}) `}arrivals/s ramped through ${stagesText(profile.stages)} (duration:target)${profile.maxOpen ? `, at most ${profile.maxOpen} open` : ''}`;
  }
}

function describePlan(plan: LoadPlan, axis: LoadAxis): string {
  switch (plan.kind) {
    case 'single':
      return describeProfile(plan.profile);
    case 'replay':
      return plan.levels.map(describeProfile).join('; ');
    case 'sweep':
      return `sweep over ${plan.levels.map(formatPlain).join(', ')} ${axis.noun}`;
    case 'capacity':
      return `capacity search by ${plan.by}, from ${formatPlain(plan.search.start)} up to ${formatPlain(plan.search.max)} ${axis.noun}`;
  }
}

function answer(report: Report): string {
  const { capacity } = report;
  if (capacity) return `Capacity: ${capacityText(report)}.`;
  const summaries = report.benchmarks.map((b) => b.summary);
  if (summaries.every((s) => s.sessions.completed === 0)) {
    const sum = (pick: (s: BenchmarkSummary) => number): number => summaries.reduce((n, s) => n + pick(s), 0);
    const top = summaries.flatMap((s) => s.failures).sort((a, b) => b.count - a.count)[0];
    return (
      `No session completed: ${sum((s) => s.sessions.failed)} failed, ${sum((s) => s.sessions.incomplete)} were cut short` +
      (top ? `; most often ${top.class} at ${top.stage}: ${top.message}` : '') +
      '.'
    );
  }
  if (report.config.slos.length > 0) {
    const failing = report.benchmarks.filter((b) => b.summary.slos.some((s) => !s.pass));
    return failing.length === 0
      ? `Every SLO held at every level (${report.config.slos.join(' · ')}).`
      : `SLOs failed at ${failing.map((b) => b.label).join(', ')}; ${report.benchmarks.length - failing.length} of ${report.benchmarks.length} levels met them all.`;
  }
  const headline = headlineLevel(report).benchmark;
  const first = headlineLatencies(report)[0];
  const figure = first && headline.summary.metrics[first.name];
  const { diarization } = headline.summary;
  // Who spoke when leads a run that scored it.
  const speakers = diarization ? `who spoke when: ${speakerLead(diarization)}; ` : '';
  return figure
    ? `At ${headline.label}, ${speakers}${first.name} was ${formatFigure(figure.p50, first)} (median) and ${formatFigure(figure.p95, first)} (p95); no SLOs were set.`
    : `No SLOs were set; the figures below describe level ${headline.label}${diarization ? `, where ${speakers.slice(0, -2)}` : ''}.`;
}

/** What qualifies the answer: early stops, a client that may not have kept up, skipped input. */
function callouts(report: Report): Html[] {
  const labels = (pick: (b: Benchmark) => boolean): string =>
    report.benchmarks
      .filter(pick)
      .map((b) => b.label)
      .join(', ');
  const stopped = labels((b) => b.stoppedBy !== undefined);
  const bottleneck = labels((b) => b.clientHealth.bottleneck);
  const warnings = [
    report.stoppedBy ? `The run stopped early (${report.stoppedBy}); the figures cover what finished.` : '',
    stopped ? `Stopped early: ${stopped}.` : '',
    bottleneck
      ? `The client may have been the bottleneck at ${bottleneck}: its send lag or event-loop delay was large against the latency it measured, so latencies there may be overstated (details under All figures by level).`
      : '',
    report.dataset.problems.length > 0 ? `${report.dataset.problems.length} dataset files were skipped (see the reproducibility record).` : '',
    ...capacityNotes(report),
  ];
  return warnings.filter(Boolean).map((w) => html`<p class="callout">${w}</p>`);
}

/** The level the headline figures describe, and why: the capacity found, else the heaviest load. */
function headlineLevel(report: Report): { benchmark: Benchmark; reason: string } {
  const ordered = benchmarksByLevel(report);
  const answer = report.capacity?.answer;
  const atCapacity = ordered.filter((b) => loadLevel(b.profile) === answer).pop();
  if (atCapacity) return { benchmark: atCapacity, reason: ', the capacity found' };
  return { benchmark: ordered[ordered.length - 1]!, reason: ordered.length > 1 ? ', the heaviest load' : '' };
}

/**
 * The task's headline figures (the catalog's `headline` tag): a per-input or per-session
 * figure as its median with its tail, a corpus figure (corpus WER, RTFx) as its one value,
 * a per-input quality ratio by its corpus value instead; then throughput and errors.
 */
function cards(report: Report, benchmark: Benchmark): Html[] {
  const { summary } = benchmark;
  const figures = metricsOf(report, 'headline').flatMap((d) => {
    if (d.scope === 'corpus') {
      const value = summary.corpus[d.name];
      return value === null || value === undefined
        ? []
        : [card(d.name, splitUnit(formatFigure(value, d)), corpusDetail(report, benchmark, d), metricTitle(report, d.name))];
    }
    const dist = summary.metrics[d.name];
    if (!dist || isQualityRatio(d)) return [];
    return [
      card(
        `${d.name} p50`,
        splitUnit(formatFigure(dist.p50, d)),
        `p95 ${formatFigure(dist.p95, d)} · p99 ${formatFigure(dist.p99, d)}`,
        metricTitle(report, d.name),
      ),
    ];
  });
  const { throughput, sessions } = summary;
  return [
    ...speakerCards(report, summary),
    ...figures,
    card(
      throughputLabel(report),
      [formatNumber(throughput.audioSPerWallS, 2), 'audio s/s'],
      `${formatNumber(throughput.sessionsPerS, 2)} sessions/s over ${formatSeconds(throughput.wallS)}`,
      THROUGHPUT_TITLE,
    ),
    card(
      'error rate',
      splitUnit(formatPercent(summary.errorRate)),
      `${sessions.completed} of ${plural(sessions.total, 'session')} completed, ${sessions.failed} failed, ${sessions.incomplete} incomplete`,
      ERROR_RATE_TITLE,
    ),
  ];
}

/** A run that scores speakers leads with who spoke when: corpus DER with its parts, and word speaker error, each with its interval. */
function speakerCards(report: Report, summary: BenchmarkSummary): Html[] {
  const speakers = summary.diarization;
  if (!speakers) return [];
  const interval = (ci: [number, number] | null): string => (ci ? `95% CI ${formatPercent(ci[0])} to ${formatPercent(ci[1])} · ` : '');
  const over = `over ${plural(speakers.recordings, 'input')}`;
  return [
    card(
      'DER',
      splitUnit(formatPercent(speakers.der)),
      `${interval(speakers.derCi95)}missed ${formatPercent(speakers.missed)} + false alarm ${formatPercent(speakers.falseAlarm)} + confusion ${formatPercent(speakers.confusion)}`,
      metricTitle(report, 'corpus_der'),
    ),
    card(
      'word speaker error',
      splitUnit(formatPercent(speakers.wordSpeakerError.value)),
      `${interval(speakers.wordSpeakerError.ci95)}${over}`,
      metricTitle(report, 'corpus_word_speaker_error'),
    ),
  ];
}

/** What a corpus figure pools: the turns scored, or the inputs whose own figure it pools. */
function corpusDetail(report: Report, benchmark: Benchmark, d: MetricDescription): string {
  const { quality, metrics } = benchmark.summary;
  if (isQualityRatio(d)) {
    const perInput = metricsOf(report, 'quality').find((m) => m.scope === 'input' && isQualityRatio(m) && metrics[m.name]);
    const count = perInput ? metrics[perInput.name]!.count : quality.turns;
    return `pooled over ${plural(count, inputNoun(report.config.task))}`;
  }
  return "over the level's measured completed sessions";
}

/** "160.7 ms" as number and unit, so the card can set the unit smaller. */
function splitUnit(figure: string): [string, string] {
  const space = figure.indexOf(' ');
  return space < 0 ? [figure, ''] : [figure.slice(0, space), figure.slice(space + 1)];
}

function card(label: string, [value, unit]: [string, string], detail: string, title: string): Html {
  return html`<div class="card" title="${title}"><div class="card-label">${label}</div><div class="card-value">${value} <span class="card-unit">${unit}</span></div><div class="card-detail">${detail}</div></div>`;
}

function levelsTable(report: Report): Html {
  const names = curveMetrics(report, 2).slice(0, 2);
  const headers = [
    'level',
    { label: 'completed / sessions', title: 'Every session of the level, warm-up and cool-down included.' },
    { label: 'error rate', title: ERROR_RATE_TITLE },
    ...names.flatMap((d) => ['p50', 'p95'].map((stat) => ({ label: breakable(`${d.name} ${stat}`), title: metricTitle(report, d.name) }))),
    { label: `${throughputLabel(report)} (audio s/s)`, title: THROUGHPUT_TITLE },
    ...report.config.slos.map((slo) => ({ label: breakable(slo), title: `SLO ${slo}: its measured value at each level, and whether it held.` })),
  ];
  const rows = benchmarksByLevel(report).map((b) => [
    b.label,
    `${b.summary.sessions.completed} / ${b.summary.sessions.total}`,
    formatPercent(b.summary.errorRate),
    ...names.flatMap((d) => {
      const dist = b.summary.metrics[d.name];
      return [dist?.p50, dist?.p95].map((v) => (v === undefined ? 'n/a' : formatFigure(v, d)));
    }),
    formatNumber(b.summary.throughput.audioSPerWallS, 2),
    ...report.config.slos.map((slo) =>
      sloChip(
        report,
        b.summary.slos.find((s) => s.slo === slo),
      ),
    ),
  ]);
  return table(headers, rows, 'levels');
}

function sloChip(report: Report, result: SloResult | undefined): Html | string {
  if (!result) return 'n/a';
  return html`<span class="chip ${result.pass ? 'pass' : 'fail'}">${result.pass ? 'pass' : 'fail'}</span> <span class="slo-value">${sloValue(report, result.slo, result.value)}</span>`;
}

/** An SLO's measured value in its metric's unit. */
function sloValue(report: Report, text: string, value: number | null): string {
  if (value === null) return 'no data';
  const aggregate = readSlo(text)?.aggregate;
  if (!aggregate) return formatPlain(value);
  return aggregate.stat === 'error_rate' ? formatPercent(value) : formatFigure(value, definitionIn(report, aggregate.metric));
}
