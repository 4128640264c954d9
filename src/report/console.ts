import type { MetricDescription, Unit } from '../metrics/catalog.js';
import type { Distribution } from '../metrics/stats.js';
import { printable } from '../util/printable.js';
import { cautions } from './cautions.js';
import { benchmarksByLevel, capacityText } from './levels.js';
import { corpusMetrics, headlineLatencies, spanText, summaryMetrics } from './picks.js';
import { thinTailLines } from './thin-tails.js';
import type { Benchmark, Report } from './schema.js';
import { plural } from '../util/plural.js';
import { isResponseAnomaly } from '../timeline/responses.js';
import { isSpeechTask } from '../timeline/types.js';
import { fixed } from './fixed.js';
import { speakerLines, speakerRulesLine } from './speaker-lines.js';
import { statisticsOf, type Statistic } from './json-summary.js';

const COLUMNS = ['count', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const;

/**
 * The console summary of a report, as plain text; with `definitions`, each shown
 * metric's definition follows. Every line goes through `printable`: a report holds
 * what the server sent (error codes and messages, close reasons) and, read back from
 * a file, whatever the file says, and none of it may drive the terminal.
 */
export function renderSummary(report: Report, { definitions = false, statistics }: { definitions?: boolean; statistics?: readonly Statistic[] } = {}): string {
  const { config } = report;
  const speech = isSpeechTask(config.task);
  const data = speech ? plural(report.dataset.count, 'prompt') : `${plural(report.dataset.count, 'sample')}, ${fixed(report.dataset.totalAudioS, 1)} s audio`;
  const lines = [
    `voxbench ${report.voxbenchVersion} · ${config.protocol} · ${config.target}${config.builtInServer ? ' (built-in server)' : ''}`,
    `model ${config.model} · data ${config.data} (${data}` +
      `${report.dataset.skipped ? `, ${report.dataset.skipped} skipped` : ''}) · ` +
      (config.transcription
        ? `upload ${config.transcription.upload === 'dataset' ? "the dataset's files" : config.transcription.upload} · ${config.transcription.stream ? 'streamed' : config.transcription.responseFormat} answers`
        : `${speech ? '' : `chunk ${config.chunkMs} ms · `}pace ${config.pace}`),
  ];
  if (report.stoppedBy) lines.push(`run stopped early (${report.stoppedBy}); the figures cover what finished`);
  const shown = summaryMetrics(report);
  const corpus = corpusMetrics(report);
  for (const benchmark of report.benchmarks) lines.push('', ...renderBenchmark(benchmark, shown, corpus, speech, statistics));
  if (report.benchmarks.some((b) => b.summary.diarization)) lines.push('', ...speakerRulesLine(config.diarization));
  if (report.benchmarks.length > 1) lines.push('', ...renderLevels(report));
  if (report.capacity) lines.push('', `capacity: ${capacityText(report.capacity)}`);
  const thin = thinTailLines(report);
  if (thin.length > 0) lines.push('', ...thin);
  if (definitions) {
    lines.push('', 'Definitions:');
    for (const m of shown) lines.push(`  ${m.name} [${m.unit}]: ${spanText(m)}. ${m.description}`);
    lines.push(`  Percentiles: ${report.percentileMethod}.`);
  } else {
    lines.push('', 'Metric definitions: --definitions, or voxbench metrics');
  }
  return lines.map(printable).join('\n');
}

/**
 * `speech`: speech generation has prompts, not turns with transcripts and end-of-speech
 * sources. `statistics` (`--percentiles`): the table's columns after count, instead of
 * mean, p50, p90, p95, p99 and max.
 */
function renderBenchmark(
  benchmark: Benchmark,
  shown: readonly MetricDescription[],
  corpus: readonly MetricDescription[],
  speech: boolean,
  statistics?: readonly Statistic[],
): string[] {
  const { summary } = benchmark;
  const { sessions, throughput } = summary;
  const errorRate = summary.errorRate === null ? 'n/a' : `${fixed(summary.errorRate * 100, 2)}%`;
  const excluded = summary.excluded.warmup + summary.excluded.cooldown;
  const lines = [
    `${benchmark.label}: ${plural(sessions.total, 'session')} · ${sessions.completed} completed · ${sessions.failed} failed · ` +
      `${sessions.incomplete} incomplete · error rate ${errorRate}` +
      (excluded ? ` (figures leave out ${summary.excluded.warmup} warm-up and ${summary.excluded.cooldown} cool-down sessions)` : ''),
    `throughput ${fixed(throughput.audioSPerWallS, 2)} audio s/s · ${fixed(throughput.sessionsPerS, 2)} sessions/s · ` + `wall ${fixed(throughput.wallS, 1)} s`,
    ...(speech
      ? []
      : [
          `turns ${summary.turns.planned} · ${summary.turns.finalized} with a final transcript · boundaries from ${summary.turns.boundaries} · ` +
            `end of speech from ${
              Object.entries(summary.turns.eosSources)
                .map(([source, n]) => `${source} ×${n}`)
                .join(', ') || 'n/a'
            }`,
        ]),
    '',
    ...(statistics
      ? statisticsTable(benchmark, shown, statistics)
      : table(
          ['metric', 'unit', ...COLUMNS],
          shown.flatMap((metric) => {
            const d = summary.metrics[metric.name];
            return d
              ? [[metric.name, metric.unit, ...COLUMNS.map((c) => (c === 'count' ? String(d.count) : format(d[c as keyof Distribution], metric.unit)))]]
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
  const corpusFigures = corpus.flatMap((m) => {
    const value = summary.corpus[m.name];
    return value === null || value === undefined ? [] : [`${m.name} ${formatNumber(value)}`];
  });
  if (corpusFigures.length > 0) lines.push(`corpus: ${corpusFigures.join(' · ')}`);
  if (summary.cost) {
    const c = summary.cost;
    lines.push(
      `cost: ${c.perAudioHour === null ? 'n/a (no audio processed)' : `${fixed(c.perAudioHour, 4)} per audio hour`} ` +
        `(${c.perReplicaHour}/replica-hour × ${c.replicas} over ${fixed(c.intervalS, 1)} s, ${fixed(c.audioS, 1)} s of audio)`,
    );
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
      return d && d.p99 >= 1 ? [` ${m.name} p99 ${format(d.p99, m.unit)} ${m.unit}.`] : [];
    });
  lines.push(`client: ${health.verdict}` + lags.join('') + (health.capHits ? ` ${plural(health.capHits, 'session')} found the open-session cap reached.` : ''));
  return lines;
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
      return v ? [[metric.name, metric.unit, String(v.count), ...statistics.map((c) => (Number.isFinite(v[c]) ? format(v[c]!, metric.unit) : 'n/a'))]] : [];
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
 * order): the curve a sweep or capacity search traces.
 */
function renderLevels(report: Report): string[] {
  const names = headlineLatencies(report)
    .map((d) => d.name)
    .filter((n) => report.benchmarks.some((b) => b.summary.metrics[n]))
    .slice(0, 3);
  return table(
    ['level', 'sessions', 'error rate', 'audio s/s', ...names.flatMap((n) => [`p50 ${n}`, `p95 ${n}`]), 'SLOs'],
    benchmarksByLevel(report).map((b) => [
      b.label,
      String(b.summary.sessions.total),
      b.summary.errorRate === null ? 'n/a' : `${fixed(b.summary.errorRate * 100, 1)}%`,
      fixed(b.summary.throughput.audioSPerWallS, 2),
      ...names.flatMap((n) => [b.summary.metrics[n]?.p50, b.summary.metrics[n]?.p95].map((v) => (v === undefined ? 'n/a' : fixed(v, 1)))),
      b.summary.slos.length === 0 ? '' : b.summary.slos.every((slo) => slo.pass) ? 'pass' : 'FAIL',
    ]),
  );
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Number.isInteger(value) ? String(value) : value.toPrecision(4);
}

function format(value: number, unit: Unit): string {
  if (unit === 'ratio') return fixed(value, 3);
  if (unit === 'ms') return fixed(value, 1);
  return fixed(Math.round(value), 0);
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
