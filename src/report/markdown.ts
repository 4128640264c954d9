import { answerLine } from './answer.js';
import { capacityNotes } from './capacity.js';
import { cellText } from './figure-text.js';
import { benchmarksByLevel } from './levels.js';
import { corpusMetrics, levelCatalog, levelsByTask, levelWer, metricsOf } from './picks.js';
import { workloadText } from './workload-text.js';
import { coldRule, coldWarmMetrics, coldWarmOf } from './cold-warm.js';
import { costText } from './cost-text.js';
import type { Benchmark, Report } from './schema.js';
import { fixed } from './fixed.js';
import { printable } from '../util/printable.js';
import { SERVER_SERIES_SHOWN, seriesLabel, seriesOverLevel, seriesPer, telemetryWarnings } from './telemetry.js';
import { speakerTable } from './speaker-lines.js';

/**
 * A Markdown summary for pull requests and issues: the question, the answer, the
 * figures per level, in the words and with the metrics of the level's task (a mixed
 * merge gets a table per task).
 */
export function renderMarkdown(report: Report): string {
  const { config } = report;
  const lines = [
    `## voxbench: ${config.protocol} · ${text(config.model)}`,
    '',
    `Target ${code(config.target)}${config.builtInServer ? ' (built-in simulated server)' : ''} · ${text(workloadText(report))} · ` +
      `voxbench ${report.voxbenchVersion} · ${report.startedAt}`,
    '',
    `**Answer:** ${text(answerLine(report))}`,
    '',
    ...capacityNotes(report).flatMap((note) => [`Warning: ${text(note)}`, '']),
  ];
  // Who spoke when leads a run that scored it, before the latencies.
  const speakers = speakerTable(benchmarksByLevel(report), report.config.diarization, text);
  if (speakers.length > 0) lines.push(...speakers.slice(1), '');
  const groups = levelsByTask(report);
  for (const [task, levels] of groups) {
    if (groups.size > 1) lines.push(`### ${task}`, '');
    lines.push(...levelsTable(report, levels), ...startsTable(report, levels), '');
  }
  lines.pop();
  lines.push(...qualityTable(report));
  for (const b of benchmarksByLevel(report)) {
    const figures = corpusMetrics(levelCatalog(report, b)).flatMap((d) =>
      typeof b.summary.corpus[d.name] === 'number' ? [`${d.name} ${round(b.summary.corpus[d.name]!)}`] : [],
    );
    if (figures.length > 0) lines.push('', `${text(b.label)}: ${figures.join(' · ')}`);
  }
  for (const b of benchmarksByLevel(report)) if (b.summary.cost) lines.push('', `${text(b.label)} cost: ${text(costText(b.summary.cost))}`);
  const slos = report.benchmarks.flatMap((b) => b.summary.slos.map((slo) => ({ level: b.label, ...slo })));
  if (slos.length > 0) {
    lines.push('', '| level | SLO | measured | verdict |', '|---|---|---:|---|');
    for (const slo of slos)
      lines.push(`| ${text(slo.level)} | ${code(slo.slo)} | ${slo.value === null ? 'no data' : round(slo.value)} | ${slo.pass ? 'pass' : '**FAIL**'} |`);
  }
  lines.push(...serverTable(report));
  const failures = report.benchmarks.flatMap((b) => b.summary.failures.map((f) => ({ level: b.label, ...f })));
  if (failures.length > 0) {
    lines.push('', '| level | failures | class | stage | detail |', '|---|---:|---|---|---|');
    for (const f of failures) {
      const detail = [f.code, f.httpStatus && `HTTP ${f.httpStatus}`, f.closeCode && `close ${f.closeCode}`].filter(Boolean).join(', ');
      lines.push(`| ${text(f.level)} | ${f.count} | ${f.class} | ${f.stage} | ${text(detail)} |`);
    }
  }
  const bottlenecks = report.benchmarks.filter((b) => b.clientHealth.bottleneck);
  lines.push(
    '',
    bottlenecks.length === 0
      ? 'The client kept up at every level.'
      : `Client warning at ${text(bottlenecks.map((b) => b.label).join(', '))}: ${bottlenecks[0]!.clientHealth.verdict}`,
  );
  return lines.join('\n') + '\n';
}

/** Levels of one task: counts, each headline metric's p50 / p95 in its unit, the task's WER and the SLO verdict. */
function levelsTable(report: Report, levels: readonly Benchmark[]): string[] {
  const metrics = metricsOf(levelCatalog(report, levels[0]!), 'headline').filter((d) => d.scope !== 'corpus' && levels.some((b) => b.summary.metrics[d.name]));
  const wers = levels.map((b) => levelWer(report, b));
  const werName = wers.find((w) => w !== null)?.name ?? 'corpus WER';
  const werHead = werName === 'corpus WER' ? 'WER [95% CI]' : `WER (${werName})`;
  return [
    `| level | sessions | completed | failed | error rate | ${metrics.map((d) => `${d.name} p50 / p95 (${d.unit})`).join(' | ')} | ${werHead} | SLOs |`,
    `|---|---:|---:|---:|---:|${metrics.map(() => '---:').join('|')}|---:|---|`,
    ...levels.map((b, i) => {
      const { sessions, errorRate, metrics: figures, slos } = b.summary;
      const cells = metrics.map((d) => (figures[d.name] ? `${cellText(figures[d.name]!.p50, d.unit)} / ${cellText(figures[d.name]!.p95, d.unit)}` : 'n/a'));
      const verdict = slos.length === 0 ? '' : slos.every((s) => s.pass) ? 'pass' : '**FAIL**';
      const wer = wers[i];
      const werCell = wer ? `${percent(wer.value)}${wer.ci95 ? ` [${percent(wer.ci95[0])}, ${percent(wer.ci95[1])}]` : ''}` : 'n/a';
      return `| ${text(b.label)} | ${sessions.total} | ${sessions.completed} | ${sessions.failed} | ${errorRate === null ? 'n/a' : percent(errorRate)} | ${cells.join(' | ')} | ${werCell} | ${verdict} |`;
    }),
  ];
}

/** The scraped server series (`--scrape`), mean and max per level, and the targets that failed. */
function serverTable(report: Report): string[] {
  const { telemetry } = report;
  if (!telemetry) return [];
  const rows = benchmarksByLevel(report).flatMap((b) =>
    seriesOverLevel(telemetry, b.startMs, b.endMs)
      .slice(0, SERVER_SERIES_SHOWN)
      .map(
        (o) =>
          `| ${text(b.label)} | ${[code(seriesLabel(o.series, telemetry)), seriesPer(o.series)].filter(Boolean).join(' ')} | ${round(o.mean)} | ${round(o.max)} |`,
      ),
  );
  const warnings = telemetryWarnings(telemetry).map((w) => `Warning: ${text(w)}`);
  return [
    ...(rows.length > 0 ? ['', '| level | server series (scraped) | mean | max |', '|---|---|---:|---:|', ...rows] : []),
    ...warnings.flatMap((w) => ['', w]),
  ];
}

const percent = (x: number | null): string => (x === null ? 'n/a' : `${fixed(x * 100, 1)}%`);

/** Corpus WER and CER by split and by language, where a level has more than one of either. */
function qualityTable(report: Report): string[] {
  const rows = report.benchmarks.flatMap((b) =>
    (['split', 'language'] as const).flatMap((by) => {
      const groups = Object.entries(by === 'split' ? b.summary.quality.bySplit : b.summary.quality.byLanguage);
      return groups.length < 2
        ? []
        : groups.map(([name, g]) => `| ${text(b.label)} | ${by} ${text(name)} | ${g.turns} | ${percent(g.wer)} | ${percent(g.cer)} | ${g.normalizer} |`);
    }),
  );
  return rows.length === 0 ? [] : ['', '| level | group | turns | WER | CER | normalizer |', '|---|---|---:|---:|---:|---|', ...rows];
}

/** Cold sessions apart from warm ones, per level of one task that had a cold one measured: counts and the headline latencies' p50 / p95. */
function startsTable(report: Report, levels: readonly Benchmark[]): string[] {
  const withSplit = levels.filter((b) => coldWarmOf(b));
  if (withSplit.length === 0) return [];
  const split = coldWarmMetrics({ ...levelCatalog(report, withSplit[0]!), benchmarks: withSplit });
  const rows = withSplit.flatMap((b) =>
    (['cold', 'warm'] as const).map((start) => {
      const { sessions, completed, failed, metrics } = coldWarmOf(b)![start];
      const figures = split.map((d) => (metrics[d.name] ? `${round(metrics[d.name]!.p50)} / ${round(metrics[d.name]!.p95)}` : 'n/a'));
      return `| ${text(b.label)} | ${start} | ${sessions} | ${completed} | ${failed} | ${figures.join(' | ')} |`;
    }),
  );
  return [
    '',
    `Cold and warm starts (${coldRule(withSplit[0]!.summary.coldWarm!.gapMs)}):`,
    '',
    `| level | start | sessions | completed | failed | ${split.map((d) => `${d.name} p50 / p95 (${d.unit})`).join(' | ')} |`,
    `|---|---|---:|---:|---:|${split.map(() => '---:').join('|')}|`,
    ...rows,
  ];
}

function round(value: number): string {
  return fixed(value, Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 1 : 3);
}

/**
 * Text from the server, a report file or the command line, inline or in a table cell:
 * on one line with control characters shown (printable), pipes (which would end the
 * cell) and markup escaped.
 */
function text(value: string): string {
  return printable(value)
    .replace(/[|\\`*_<>[\]]/g, (c) => `\\${c}`)
    .replace(/\s+/g, ' ');
}

/**
 * A code span: fenced by more backticks than any run inside it (CommonMark), pipes
 * escaped, since a table row ends at a pipe even inside a code span (GFM).
 */
function code(value: string): string {
  const inside = printable(value).replace(/\|/g, '\\|');
  const fence = '`'.repeat(Math.max(0, ...(inside.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = /^`|`$/.test(inside) ? ' ' : '';
  return `${fence}${pad}${inside}${pad}${fence}`;
}
