import { replicasSource } from './cost-text.js';
import { isPrintable, printable } from '../util/printable.js';
import type { MetricDescription } from '../metrics/catalog.js';
import { isSpeechTask, type Task } from '../timeline/types.js';
import type { InputView } from '../views/session-view.js';
import { levelTask } from './picks.js';
import type { Report, Telemetry } from './schema.js';
import { seriesOverLevel } from './telemetry.js';

/**
 * The CSV files of a report, by file name: one row per turn (input), per session, and
 * per benchmark level, with the columns of the tasks its levels ran (a mixed merge has
 * several). A metric column that no row has a value for is left out: the figure does not
 * apply to this run (`ftts_ms` without streamed text, barge-in figures without barge-ins).
 * `starts.csv` has a row per level's cold and per its warm sessions.
 */
export function renderCsv(report: Report): Record<string, string> {
  return Object.fromEntries(Object.entries(csvFiles(report)).map(([name, lines]) => [name, [...lines()].join('')]));
}

/**
 * `renderCsv`'s files as their lines, each file's made as they are read: a writer holds
 * one line at a time, not every row and the whole text (turns.csv is 30 MiB at 100,000
 * sessions, its rows more; issue 38).
 */
export function csvFiles(report: Report): Record<string, () => Iterable<string>> {
  const { telemetry } = report;
  return {
    'turns.csv': () => turnsCsv(report),
    'sessions.csv': () => sessionsCsv(report),
    'levels.csv': () => levelsCsv(report),
    'starts.csv': () => startsCsv(report),
    ...(telemetry ? { 'server-metrics.csv': () => serverCsv(report, telemetry) } : {}),
  };
}

/** One row per level and scraped series: its mean and max over the level (`--scrape`). */
function serverCsv(report: Report, telemetry: Telemetry): Iterable<string> {
  const rows = report.benchmarks.flatMap((b) =>
    seriesOverLevel(telemetry, b.startMs, b.endMs).map(({ series, mean, max }) => [
      b.label,
      telemetry.targets[series.target]?.url,
      series.name,
      JSON.stringify(series.labels),
      series.kind,
      mean,
      max,
    ]),
  );
  return csv(['level', 'target', 'series', 'labels', 'kind', 'mean', 'max'], rows);
}

const header = (name: string, unit: string): string => `${name} [${unit}]`;
const STATS = ['count', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const;

/** The metrics of the report's tasks, in catalog order, each once. */
function metricsOfTasks(report: Report): MetricDescription[] {
  const tasks = new Set(report.benchmarks.map((b) => levelTask(report, b)));
  if (tasks.size === 0) tasks.add(report.config.task);
  return report.metricDefinitions.filter((d) => d.tasks.some((t) => tasks.has(t)));
}

/** A turn's columns beyond its place, by what the tasks exchanged. */
export interface TurnColumn {
  head: string;
  value(view: InputView): unknown;
}

const audioPlan = (view: InputView) => (view.plan?.kind === 'audio' ? view.plan : undefined);

/**
 * Streamed audio has end-of-speech sources; audio in has transcripts to check against
 * references; speech generation has the text sent and what the round trip heard.
 */
export function turnColumns(tasks: ReadonlySet<Task>): TurnColumn[] {
  const has = (pick: (task: Task) => boolean): boolean => [...tasks].some(pick);
  return [
    ...(has((t) => t === 'stt' || t === 's2s') ? [{ head: 'eos_source', value: (v: InputView) => audioPlan(v)?.eosSource }] : []),
    ...(has((t) => !isSpeechTask(t))
      ? [
          { head: 'finalized', value: (v: InputView) => (audioPlan(v) ? (v.transcript.final ? 'yes' : 'no') : undefined) },
          { head: 'transcript', value: (v: InputView) => (audioPlan(v) ? v.transcript.text : undefined) },
          { head: 'reference', value: (v: InputView) => audioPlan(v)?.reference },
        ]
      : []),
    ...(has(isSpeechTask)
      ? [
          { head: 'text', value: (v: InputView) => (v.plan?.kind === 'text' ? v.plan.text : undefined) },
          { head: 'round_trip_transcript', value: (v: InputView) => (v.analysis?.asr && 'text' in v.analysis.asr ? v.analysis.asr.text : undefined) },
        ]
      : []),
  ];
}

function turnsCsv(report: Report): Iterable<string> {
  const columns = turnColumns(new Set([report.config.task, ...report.benchmarks.map((b) => levelTask(report, b))]));
  const turnMetrics = withValues(
    metricsOfTasks(report).filter((m) => m.scope === 'input'),
    (function* () {
      for (const b of report.benchmarks) for (const s of b.sessions) yield* s.metrics.inputs;
    })(),
  );
  const rows = function* (): Generator<unknown[]> {
    for (const b of report.benchmarks)
      for (const s of b.sessions) {
        const metrics = s.metrics.inputs;
        for (const [i, input] of s.facts.inputs.entries()) {
          const row: unknown[] = [b.label, s.index, s.phase, s.start, s.outcome.status, input.index, input.sampleId, input.split];
          for (const c of columns) row.push(input.columns[c.head]);
          for (const m of turnMetrics) row.push(metrics[i]?.[m.name]);
          yield row;
        }
      }
  };
  return csv(
    [
      'level',
      'session',
      'phase',
      'start',
      'outcome',
      'turn',
      'sample_id',
      'split',
      ...columns.map((c) => c.head),
      ...turnMetrics.map((m) => header(m.name, m.unit)),
    ],
    rows(),
  );
}

/** The metrics that some row has a value for, the rows read once each: a session's stored rows are made again when read (`StoredMetrics`). */
function withValues(metrics: readonly MetricDescription[], rows: Iterable<Record<string, unknown> | undefined>): MetricDescription[] {
  const valued = new Set<string>();
  for (const row of rows) if (row) for (const name in row) if (row[name] !== undefined && row[name] !== null) valued.add(name);
  return metrics.filter((m) => valued.has(m.name));
}

function sessionsCsv(report: Report): Iterable<string> {
  const sessionMetrics = withValues(
    metricsOfTasks(report).filter((m) => m.scope === 'session'),
    (function* () {
      for (const b of report.benchmarks) for (const s of b.sessions) yield s.metrics.session;
    })(),
  );
  const rows = function* (): Generator<unknown[]> {
    for (const b of report.benchmarks)
      for (const s of b.sessions) {
        const failure = s.outcome.status === 'failed' ? s.outcome.failure : undefined;
        const incomplete = s.outcome.status === 'incomplete' ? s.outcome.reason : undefined;
        const { close } = s.facts;
        const row: unknown[] = [
          b.label,
          s.index,
          s.phase,
          s.start,
          s.outcome.status,
          failure?.class ?? incomplete,
          failure?.stage ?? (s.outcome.status === 'incomplete' ? s.outcome.stage : undefined),
          failure?.code,
          failure?.httpStatus,
          close?.code,
          close?.reason,
          close?.by,
          failure?.message,
          s.facts.inputSampleIds.join(' '),
        ];
        const metrics = s.metrics.session;
        for (const m of sessionMetrics) row.push(metrics[m.name]);
        yield row;
      }
  };
  return csv(
    [
      'level',
      'session',
      'phase',
      'start',
      'outcome',
      'failure_class',
      'stage',
      'server_code',
      'http_status',
      'close_code',
      'close_reason',
      'closed_by',
      'message',
      'sample_ids',
      ...sessionMetrics.map((m) => header(m.name, m.unit)),
    ],
    rows(),
  );
}

/** Each statistic of each metric that is not a corpus figure and that some level has a value for, as a column: its metric, statistic and header. */
function metricColumnsOf(report: Report): Array<{ name: string; stat: (typeof STATS)[number]; head: string }> {
  return withValues(
    metricsOfTasks(report).filter((m) => m.scope !== 'corpus'),
    report.benchmarks.map((b) => b.summary.metrics),
  ).flatMap((m) => STATS.map((stat) => ({ name: m.name, stat, head: header(`${m.name} ${stat}`, stat === 'count' ? 'count' : m.unit) })));
}

function levelsCsv(report: Report): Iterable<string> {
  const corpus = withValues(
    metricsOfTasks(report).filter((m) => m.scope === 'corpus'),
    report.benchmarks.map((b) => b.summary.corpus),
  );
  const metricColumns = metricColumnsOf(report);
  const priced = report.benchmarks.some((b) => b.summary.cost);
  const rows = report.benchmarks.map((b) => {
    const { sessions, throughput, cost } = b.summary;
    return [
      b.label,
      sessions.total,
      sessions.completed,
      sessions.failed,
      sessions.incomplete,
      b.summary.excluded.warmup + b.summary.excluded.cooldown,
      b.summary.errorRate,
      throughput.wallS,
      throughput.audioS,
      throughput.audioSPerWallS,
      throughput.sessionsPerS,
      ...corpus.map((m) => b.summary.corpus[m.name]),
      b.summary.slos.length === 0 ? '' : b.summary.slos.every((slo) => slo.pass) ? 'pass' : 'fail',
      b.clientHealth.bottleneck ? 'bottleneck' : 'ok',
      b.stoppedBy,
      ...metricColumns.map(({ name, stat }) => b.summary.metrics[name]?.[stat]),
      ...(priced ? [cost?.perAudioHour, cost?.replicas, cost && replicasSource(cost)] : []),
    ];
  });
  return csv(
    [
      'level',
      'sessions',
      'completed',
      'failed',
      'incomplete',
      'excluded',
      header('error_rate', 'ratio'),
      header('wall', 's'),
      header('audio', 's'),
      header('throughput', 'audio s/s'),
      header('throughput', 'sessions/s'),
      ...corpus.map((m) => header(m.name, m.unit)),
      'slos',
      'client',
      'stopped_by',
      ...metricColumns.map((c) => c.head),
      ...(priced ? ['cost_per_audio_hour', 'replicas', 'replicas_from'] : []),
    ],
    rows,
  );
}

/** Each level's measured sessions that started cold, and those that started warm: counts and figures (levels from before the split have no rows). */
function startsCsv(report: Report): Iterable<string> {
  const metricColumns = metricColumnsOf(report);
  const rows = report.benchmarks.flatMap((b) => {
    const split = b.summary.coldWarm;
    if (!split) return [];
    return (['cold', 'warm'] as const).map((start) => {
      const group = split[start];
      return [
        b.label,
        start,
        split.gapMs / 1000,
        group.sessions,
        group.completed,
        group.failed,
        ...metricColumns.map(({ name, stat }) => group.metrics[name]?.[stat]),
      ];
    });
  });
  return csv(['level', 'start', header('cold_gap', 's'), 'sessions', 'completed', 'failed', ...metricColumns.map((c) => c.head)], rows);
}

/**
 * RFC 4180: fields with commas, quotes or line breaks are quoted, quotes doubled;
 * missing values are empty. Text is made printable, as on the console (one line,
 * control characters shown as escapes), so `cat` or a pager shows it and acts on
 * nothing; text that a spreadsheet would run as a formula (a transcript starting
 * with `=`, say) is prefixed with `'`.
 */
function* csv(head: string[], rows: Iterable<unknown[]>): Generator<string> {
  yield line(head);
  for (const row of rows) yield line(row);
}

/** A row's cells joined, with no array of them made first (turns.csv has a row per turn). */
function line(row: readonly unknown[]): string {
  let text = csvCell(row[0]);
  for (let i = 1; i < row.length; i++) text += `,${csvCell(row[i])}`;
  return `${text}\r\n`;
}

/** One value as a CSV cell (see `csv`). */
export function csvCell(value: unknown): string {
  // A number that is not finite has no figure: the cell stays empty, as a missing value's does. A finite one needs no quotes (most cells).
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (value === undefined || value === null) return '';
  // Most text (labels, ids, transcripts) needs nothing done: two tests tell so before anything is made of it.
  if (typeof value === 'string' && isPrintable(value) && !NOT_PLAIN.test(value)) return value;
  const text = typeof value === 'string' ? formulaSafe(printable(value)) : typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const formulaSafe = (text: string): string => (/^[=+\-@]/.test(text) ? `'${text}` : text);

/** What keeps printable text from going into a cell as it is: a formula's first character, or a character to quote. */
const NOT_PLAIN = /^[=+\-@]|[",]/;
