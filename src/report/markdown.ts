import { benchmarksByLevel, capacityText } from './levels.js';
import { corpusMetrics, definitionIn, metricsOf } from './picks.js';
import type { Benchmark, Report } from './schema.js';
import { plural } from '../util/plural.js';
import { fixed } from './fixed.js';
import { printable } from '../util/printable.js';
import { speakerTable } from './speaker-lines.js';

/** A Markdown summary for pull requests and issues: the question, the answer, the figures per level. */
export function renderMarkdown(report: Report): string {
  const { config } = report;
  const names = metricsOf(report, 'headline')
    .map((d) => d.name)
    .filter((n) => report.benchmarks.some((b) => b.summary.metrics[n]));
  const unit = (name: string): string => definitionIn(report, name)!.unit;
  const lines = [
    `## voxbench: ${config.protocol} · ${text(config.model)}`,
    '',
    `Target ${code(config.target)}${config.builtInServer ? ' (built-in simulated server)' : ''} · data ${text(config.data)} ` +
      `(${plural(report.dataset.count, 'sample')}, ${fixed(report.dataset.totalAudioS, 1)} s) · pace ${config.pace} · chunk ${config.chunkMs} ms · ` +
      `${config.turnsPerSession} turn(s)/session · voxbench ${report.voxbenchVersion} · ${report.startedAt}`,
    '',
  ];
  if (report.capacity) lines.push(`**Capacity:** ${capacityText(report.capacity)}.`, '');
  lines.push(
    `| level | sessions | completed | failed | error rate | ${names.map((n) => `${n} p50 / p95 (${unit(n)})`).join(' | ')} | WER [95% CI] | SLOs |`,
    `|---|---:|---:|---:|---:|${names.map(() => '---:').join('|')}|---:|---|`,
    ...benchmarksByLevel(report).map((b) => row(b, names)),
  );
  lines.push(...qualityTable(report));
  lines.push(...speakerTable(benchmarksByLevel(report), report.config.diarization, text));
  const corpus = corpusMetrics(report);
  for (const b of benchmarksByLevel(report)) {
    const figures = corpus.flatMap((d) => (typeof b.summary.corpus[d.name] === 'number' ? [`${d.name} ${round(b.summary.corpus[d.name]!)}`] : []));
    if (figures.length > 0) lines.push('', `${text(b.label)}: ${figures.join(' · ')}`);
  }
  const slos = report.benchmarks.flatMap((b) => b.summary.slos.map((slo) => ({ level: b.label, ...slo })));
  if (slos.length > 0) {
    lines.push('', '| level | SLO | measured | verdict |', '|---|---|---:|---|');
    for (const slo of slos)
      lines.push(`| ${text(slo.level)} | ${code(slo.slo)} | ${slo.value === null ? 'no data' : round(slo.value)} | ${slo.pass ? 'pass' : '**FAIL**'} |`);
  }
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

function row(b: Benchmark, names: string[]): string {
  const { sessions, errorRate, metrics, quality, slos } = b.summary;
  const figures = names.map((n) => (metrics[n] ? `${round(metrics[n].p50)} / ${round(metrics[n].p95)}` : 'n/a'));
  const verdict = slos.length === 0 ? '' : slos.every((s) => s.pass) ? 'pass' : '**FAIL**';
  const wer =
    quality.wer === null ? 'n/a' : `${percent(quality.wer)}${quality.werCi95 ? ` [${percent(quality.werCi95[0])}, ${percent(quality.werCi95[1])}]` : ''}`;
  return `| ${text(b.label)} | ${sessions.total} | ${sessions.completed} | ${sessions.failed} | ${errorRate === null ? 'n/a' : percent(errorRate)} | ${figures.join(' | ')} | ${wer} | ${verdict} |`;
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
