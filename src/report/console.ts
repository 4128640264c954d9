import { replayLines } from './replay-text.js';
import type { MetricDescription, Unit } from '../metrics/catalog.js';
import type { Distribution } from '../metrics/stats.js';
import { printable } from '../util/printable.js';
import { cautions } from './cautions.js';
import { capacityNotes, capacityText } from './capacity.js';
import { corpusMetrics, headlineLatencies, levelCatalog, levelsByTask, levelWer, measuredCompleted, spanText, summaryMetrics } from './picks.js';
import { answerLine } from './answer.js';
import { cellText, figureText } from './figure-text.js';
import { workloadText } from './workload-text.js';
import { describeProblem } from '../data/errors.js';
import { coldRule, coldWarmMetrics, coldWarmOf } from './cold-warm.js';
import { thinTailLines } from './thin-tails.js';
import type { Benchmark, Report } from './schema.js';
import { plural } from '../util/plural.js';
import { isResponseAnomaly } from '../timeline/responses.js';
import { isSpeechTask, type Task } from '../timeline/types.js';
import { fixed } from './fixed.js';
import { costText } from './cost-text.js';
import { SERVER_SERIES_SHOWN, seriesOverLevel, seriesTitle, telemetryWarnings } from './telemetry.js';
import { speakerLines, speakerRulesLine } from './speaker-lines.js';
import { statisticsOf } from './json-summary.js';
import type { Statistic } from './statistics.js';

const COLUMNS = ['count', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const;

/**
 * The console summary of a report, as plain text; with `definitions`, each shown
 * metric's definition follows. Every line goes through `printable`: a report holds
 * what the server sent (error codes and messages, close reasons) and, read back from
 * a file, whatever the file says, and none of it may drive the terminal.
 */
export function renderSummary(report: Report, { definitions = false, statistics }: { definitions?: boolean; statistics?: readonly Statistic[] } = {}): string {
  const { config } = report;
  const lines = [
    answerLine(report),
    '',
    `voxbench ${report.voxbenchVersion} · ${config.protocol} · ${config.target}${config.builtInServer ? ' (built-in server)' : ''}`,
    `model ${config.model} · ${workloadText(report)}`,
    ...skippedLines(report),
  ];
  lines.push(...replayLines(report));
  if (report.stoppedBy) lines.push(`run stopped early (${report.stoppedBy}); the figures cover what finished`);
  // A merge of different workloads (--allow-mixed) holds levels of several tasks: each is shown with its own task's metrics, and named.
  const mixed = levelsByTask(report).size > 1;
  for (const benchmark of report.benchmarks) lines.push('', ...renderBenchmark(report, benchmark, mixed, statistics), ...serverLines(report, benchmark));
  if (report.benchmarks.some((b) => b.summary.diarization)) lines.push('', ...speakerRulesLine(config.diarization));
  if (report.benchmarks.length > 1) lines.push('', ...renderLevels(report, statistics));
  if (report.capacity) lines.push('', `capacity: ${capacityText(report)}`, ...capacityNotes(report).map((note) => `warning: ${note}`));
  if (report.telemetry) lines.push(...telemetryWarnings(report.telemetry).map((w) => `warning: ${w}`));
  const thin = thinTailLines(report);
  if (thin.length > 0) lines.push('', ...thin);
  if (definitions) {
    lines.push('', 'Definitions:');
    const shown = [...new Map(report.benchmarks.flatMap((b) => summaryMetrics(levelCatalog(report, b))).map((m) => [m.name, m])).values()];
    for (const m of shown) lines.push(`  ${m.name} [${m.unit}]: ${spanText(m)}. ${m.description}`);
    lines.push(`  Percentiles: ${report.percentileMethod}.`);
  } else {
    lines.push('', 'Metric definitions: --definitions, or voxbench metrics');
  }
  return lines.map(printable).join('\n');
}

/** Skipped dataset files shown with their reasons. */
const SKIPPED_SHOWN = 3;

/** The samples the dataset could not give, each named with why (the first few; the rest counted, and where to find them). */
function skippedLines(report: Report): string[] {
  const skipped = (report.dataset.problems ?? []).filter((p) => !p.noSampleSkipped);
  const lines = skipped.slice(0, SKIPPED_SHOWN).map((p) => `skipped ${describeProblem(p)}`);
  if (skipped.length > SKIPPED_SHOWN) lines.push(`skipped ${skipped.length - SKIPPED_SHOWN} more; every one is in report.json (dataset.problems)`);
  return lines;
}

/**
 * One level: its sessions, throughput and what it sent in its task's words, its
 * metric table (`statistics`, from `--percentiles`: the columns after count, instead
 * of mean, p50, p90, p95, p99 and max), failures, quality and verdicts. `mixed`: the
 * report holds levels of several tasks, so the level's task is named.
 */
function renderBenchmark(report: Report, benchmark: Benchmark, mixed: boolean, statistics?: readonly Statistic[]): string[] {
  const catalog = levelCatalog(report, benchmark);
  const task = catalog.config.task;
  const shown = summaryMetrics(catalog);
  const corpus = corpusMetrics(catalog);
  const split = coldWarmMetrics({ ...catalog, benchmarks: report.benchmarks });
  const { summary } = benchmark;
  const { sessions, throughput } = summary;
  const errorRate = summary.errorRate === null ? 'n/a' : `${fixed(summary.errorRate * 100, 2)}%`;
  const excluded = summary.excluded.warmup + summary.excluded.cooldown;
  const lines = [
    `${benchmark.label}${mixed ? ` [${task}]` : ''}: ${plural(sessions.total, 'session')} · ${sessions.completed} completed · ${sessions.failed} failed · ` +
      `${sessions.incomplete} incomplete · error rate ${errorRate}` +
      (excluded ? ` (figures leave out ${summary.excluded.warmup} warm-up and ${summary.excluded.cooldown} cool-down sessions)` : ''),
    `throughput ${fixed(throughput.audioSPerWallS, 2)} audio s/s · ${fixed(throughput.sessionsPerS, 2)} sessions/s · ` + `wall ${fixed(throughput.wallS, 1)} s`,
    ...coldWarmLines(benchmark, split),
    inputsLine(task, benchmark),
    '',
    ...(statistics
      ? statisticsTable(benchmark, shown, statistics)
      : table(
          ['metric', 'unit', ...COLUMNS],
          shown.flatMap((metric) => {
            const d = summary.metrics[metric.name];
            return d
              ? [[metric.name, metric.unit, ...COLUMNS.map((c) => (c === 'count' ? String(d.count) : cellText(d[c as keyof Distribution], metric.unit)))]]
              : [];
          }),
        )),
  ];
  for (const f of summary.failures) {
    const detail = [f.code, f.httpStatus && `HTTP ${f.httpStatus}`, f.closeCode && `close ${f.closeCode}`].filter(Boolean).join(', ');
    lines.push(`failed ×${f.count}: ${f.class}${detail ? ` (${detail})` : ''} at ${f.stage}: ${f.message}`);
  }
  for (const i of summary.incomplete) lines.push(`incomplete ×${i.count}: ${i.reason} during ${i.stage}`);
  const { sessions: n, reasons } = summary.anomalies;
  if (n > 0) {
    const named = Object.entries(reasons).map(([reason, count]) => `${isResponseAnomaly(reason) ? reason : `${reason} final`} ×${count}`);
    lines.push(`protocol anomalies: ${named.join(', ')} in ${n} session${n === 1 ? '' : 's'} (recorded, never used as a turn's final or in a figure)`);
  }
  if (benchmark.stoppedBy) lines.push(`stopped early: ${benchmark.stoppedBy}`);
  lines.push(...cautions(summary));
  lines.push(...qualityLines(summary.quality));
  lines.push(...speakerLines(summary.diarization));
  const wer = summary.quality.wer === null ? levelWer(catalog, benchmark) : null;
  if (wer) lines.push(`quality: intelligibility ${wer.name} ${fixed(wer.value * 100, 2)}% (the received audio transcribed and scored against the text sent)`);
  const corpusFigures = corpus.flatMap((m) => {
    const value = summary.corpus[m.name];
    return value === null || value === undefined ? [] : [`${m.name} ${formatNumber(value)}`];
  });
  if (corpusFigures.length > 0) lines.push(`corpus: ${corpusFigures.join(' · ')}`);
  if (summary.cost) {
    const c = summary.cost;
    lines.push(`cost: ${costText(c)}`);
    if (c.perMillionChars !== undefined)
      lines.push(
        `cost: ${c.perMillionChars === null ? 'n/a (no characters)' : `${fixed(c.perMillionChars, 4)} per million input characters`} (${c.chars} characters)`,
      );
  }
  for (const slo of summary.slos)
    lines.push(`SLO ${slo.pass ? 'pass' : 'FAIL'}: ${slo.slo} (measured ${slo.value === null ? 'no data' : formatNumber(slo.value)})`);
  const health = benchmark.clientHealth;
  // The client's per-session lateness (its start lag against the load profile), where it is worth a word.
  const lags = shown
    .filter((m) => m.tags.includes('client') && m.scope === 'session')
    .flatMap((m) => {
      const d = summary.metrics[m.name];
      return d && d.p99 >= 1 ? [` ${m.name} p99 ${figureText(d.p99, m.unit)}.`] : [];
    });
  lines.push(`client: ${health.verdict}` + lags.join('') + (health.capHits ? ` ${plural(health.capHits, 'session')} found the open-session cap reached.` : ''));
  return lines;
}

/**
 * What the level sent and got back, in its task's words: turns (streamed audio), with
 * the responses that answered them (speech to speech), uploads (batch), texts (speech
 * generation).
 */
function inputsLine(task: Task, { summary, sessions }: Benchmark): string {
  const { turns } = summary;
  if (isSpeechTask(task)) {
    const chars = summary.metrics['chars'];
    return (
      `texts ${turns.planned}` +
      (chars ? ` · ${plural(Math.round(chars.mean * chars.count), 'character')}` : '') +
      ` · ${fixed(summary.throughput.audioS, 1)} s of audio produced`
    );
  }
  if (task === 'batch_stt') return `uploads ${turns.planned} · ${turns.finalized} with a final transcript`;
  const eos = Object.entries(turns.eosSources).map(([source, n]) => `${source} ×${n}`);
  return (
    `turns ${turns.planned} · ${turns.finalized} with a final transcript · ` +
    (task === 's2s' ? `${responsesText(sessions)} · ` : '') +
    `boundaries from ${turns.boundaries} · ` +
    `end of speech from ${eos.join(', ') || 'n/a'}`
  );
}

/** Speech to speech: the responses of the measured completed sessions, by how they ended, e.g. "5 responses (4 done, 1 cancelled)". */
function responsesText(sessions: Benchmark['sessions']): string {
  const byStatus = new Map<string, number>();
  for (const s of measuredCompleted(sessions)) for (const status of s.facts.responseStatuses) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  const total = [...byStatus.values()].reduce((n, c) => n + c, 0);
  const done = byStatus.get('done') ?? 0;
  const others = [...byStatus].filter(([status]) => status !== 'done').map(([status, n]) => `${n} ${status}`);
  return `${plural(total, 'response')}${others.length > 0 ? ` (${[`${done} done`, ...others].join(', ')})` : ''}`;
}

/**
 * Cold sessions apart from warm ones: counts, then, where both completed some, each
 * headline latency's p50 and p95 in both, one line each (otherwise the table is theirs).
 */
function coldWarmLines(benchmark: Benchmark, split: readonly MetricDescription[]): string[] {
  const coldWarm = coldWarmOf(benchmark);
  if (!coldWarm) return [];
  const { cold, warm } = coldWarm;
  const pair = (d: Distribution | null | undefined, unit: Unit): string => (d ? `${cellText(d.p50, unit)}/${cellText(d.p95, unit)} ${unit}` : 'n/a');
  return [
    `starts: ${cold.sessions} cold · ${warm.sessions} warm (${coldRule(coldWarm.gapMs)})`,
    ...(cold.completed > 0 && warm.completed > 0 ? split : []).map(
      (m) => `  ${m.name} p50/p95: cold ${pair(cold.metrics[m.name], m.unit)} · warm ${pair(warm.metrics[m.name], m.unit)}`,
    ),
  ];
}

/** The scraped series over the level, mean and max, a few of them: the server's side of the figures above. */
function serverLines(report: Report, benchmark: Benchmark): string[] {
  if (!report.telemetry) return [];
  const over = seriesOverLevel(report.telemetry, benchmark.startMs, benchmark.endMs);
  if (over.length === 0) return [`server: no series scraped during ${benchmark.label}`];
  const shown = over
    .slice(0, SERVER_SERIES_SHOWN)
    .map((o) => `  ${seriesTitle(o.series, report.telemetry!)}: mean ${formatNumber(o.mean)} · max ${formatNumber(o.max)}`);
  const more = over.length - shown.length;
  return [`server (scraped, mean and max over the level${more > 0 ? `; ${more} more in report.json` : ''}):`, ...shown];
}

/** The metric table with the chosen statistics, count first. */
function statisticsTable(benchmark: Benchmark, shown: readonly MetricDescription[], statistics: readonly Statistic[]): string[] {
  const values = statisticsOf(
    benchmark,
    shown.map((m) => m.name),
    statistics,
  );
  return table(
    ['metric', 'unit', 'count', ...statistics],
    shown.flatMap((metric) => {
      const v = values[metric.name];
      return v ? [[metric.name, metric.unit, String(v.count), ...statistics.map((c) => (Number.isFinite(v[c]) ? cellText(v[c]!, metric.unit) : 'n/a'))]] : [];
    }),
  );
}

/**
 * Corpus WER with its interval and CER, the word edits behind them and the normalizer;
 * then WER by split and by language where there is more than one.
 */
function qualityLines(quality: Benchmark['summary']['quality']): string[] {
  if (quality.wer === null) return [];
  const percent = (x: number | null): string => (x === null ? 'n/a' : `${fixed(x * 100, 2)}%`);
  const ci = quality.werCi95 ? ` (95% CI ${percent(quality.werCi95[0])} to ${percent(quality.werCi95[1])})` : '';
  const lines = [
    `quality: corpus WER ${percent(quality.wer)}${ci} · CER ${percent(quality.cer)} over ${plural(quality.turns, 'turn')} ` +
      `(${plural(quality.referenceWords, 'reference word')}: ${quality.substitutions} substituted, ${quality.deletions} deleted, ${quality.insertions} inserted; normalizer ${quality.normalizer})`,
  ];
  for (const [by, groups] of [
    ['split', quality.bySplit],
    ['language', quality.byLanguage],
  ] as const) {
    const entries = Object.entries(groups);
    if (entries.length < 2) continue;
    lines.push(
      `  by ${by}: ${entries.map(([name, g]) => `${name} WER ${percent(g.wer)} CER ${percent(g.cer)} (${plural(g.turns, 'turn')}, ${g.normalizer})`).join(' · ')}`,
    );
  }
  return lines;
}

/**
 * One line per load level, by increasing load (a capacity search runs them in probe
 * order): the curve a sweep or capacity search traces, with the headline latencies'
 * p50 and p95, or the `--percentiles` chosen. Levels of different tasks (a mixed
 * merge) get a table each, with their own task's metrics.
 */
function renderLevels(report: Report, statistics: readonly Statistic[] = ['p50', 'p95']): string[] {
  const byTask = levelsByTask(report);
  return [...byTask].flatMap(([task, levels], i) => {
    const catalog = levelCatalog(report, levels[0]!);
    const metrics = headlineLatencies(catalog)
      .filter((d) => levels.some((b) => b.summary.metrics[d.name]))
      .slice(0, 3);
    const rows = levels.map((b) => {
      const values = statisticsOf(
        b,
        metrics.map((d) => d.name),
        statistics,
      );
      return [
        b.label,
        String(b.summary.sessions.total),
        b.summary.errorRate === null ? 'n/a' : `${fixed(b.summary.errorRate * 100, 1)}%`,
        fixed(b.summary.throughput.audioSPerWallS, 2),
        ...metrics.flatMap((d) =>
          statistics.map((stat) => (values[d.name] && Number.isFinite(values[d.name]![stat]) ? cellText(values[d.name]![stat]!, d.unit) : 'n/a')),
        ),
        b.summary.slos.length === 0 ? '' : b.summary.slos.every((slo) => slo.pass) ? 'pass' : 'FAIL',
      ];
    });
    const head = ['level', 'sessions', 'error rate', 'audio s/s', ...metrics.flatMap((d) => statistics.map((stat) => `${stat} ${d.name}`)), 'SLOs'];
    return [...(byTask.size > 1 ? [...(i > 0 ? [''] : []), `${task} levels:`] : []), ...table(head, rows)];
  });
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Number.isInteger(value) ? String(value) : value.toPrecision(4);
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
