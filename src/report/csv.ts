import { printable } from '../util/printable.js';
import { sessionView } from '../views/session-view.js';
import { metricsOf } from './picks.js';
import type { Report, Telemetry } from './schema.js';
import { seriesOverLevel } from './telemetry.js';

/** The CSV files of a report, by file name: one row per turn (input), per session, and per benchmark level. */
export function renderCsv(report: Report): Record<string, string> {
  return {
    'turns.csv': turnsCsv(report),
    'sessions.csv': sessionsCsv(report),
    'levels.csv': levelsCsv(report),
    ...(report.telemetry ? { 'server-metrics.csv': serverCsv(report, report.telemetry) } : {}),
  };
}

/** One row per level and scraped series: its mean and max over the level (`--scrape`). */
function serverCsv(report: Report, telemetry: Telemetry): string {
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

function turnsCsv(report: Report): string {
  const turnMetrics = metricsOf(report).filter((m) => m.scope === 'input');
  const rows = report.benchmarks.flatMap((b) =>
    b.sessions.flatMap((s) =>
      sessionView(s.timeline).inputs.map((view, i) => {
        const audio = view.plan?.kind === 'audio' ? view.plan : undefined;
        return [
          b.label,
          s.index,
          s.phase,
          s.outcome.status,
          view.index,
          view.plan?.sampleId,
          view.plan?.split,
          audio?.eosSource,
          view.transcript.final ? 'yes' : 'no',
          view.transcript.text,
          audio ? audio.reference : view.plan?.kind === 'text' ? view.plan.text : undefined,
          ...turnMetrics.map((m) => s.metrics.inputs[i]?.[m.name]),
        ];
      }),
    ),
  );
  return csv(
    [
      'level',
      'session',
      'phase',
      'outcome',
      'turn',
      'sample_id',
      'split',
      'eos_source',
      'finalized',
      'transcript',
      'reference',
      ...turnMetrics.map((m) => header(m.name, m.unit)),
    ],
    rows,
  );
}

function sessionsCsv(report: Report): string {
  const sessionMetrics = metricsOf(report).filter((m) => m.scope === 'session');
  const rows = report.benchmarks.flatMap((b) =>
    b.sessions.map((s) => {
      const failure = s.outcome.status === 'failed' ? s.outcome.failure : undefined;
      const incomplete = s.outcome.status === 'incomplete' ? s.outcome.reason : undefined;
      const close = s.timeline.transport.kind === 'websocket' ? s.timeline.transport.close : undefined;
      return [
        b.label,
        s.index,
        s.phase,
        s.outcome.status,
        failure?.class ?? incomplete,
        failure?.stage ?? (s.outcome.status === 'incomplete' ? s.outcome.stage : undefined),
        failure?.code,
        failure?.httpStatus,
        close?.code,
        close?.reason,
        close?.by,
        failure?.message,
        s.timeline.inputs.map((t) => t.sampleId).join(' '),
        ...sessionMetrics.map((m) => s.metrics.session[m.name]),
      ];
    }),
  );
  return csv(
    [
      'level',
      'session',
      'phase',
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
    rows,
  );
}

function levelsCsv(report: Report): string {
  const corpus = metricsOf(report).filter((m) => m.scope === 'corpus');
  const metricColumns = metricsOf(report)
    .filter((m) => m.scope !== 'corpus')
    .flatMap((m) => STATS.map((stat) => ({ name: m.name, stat, head: header(`${m.name} ${stat}`, stat === 'count' ? 'count' : m.unit) })));
  const rows = report.benchmarks.map((b) => {
    const { sessions, throughput } = b.summary;
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
    ],
    rows,
  );
}

/**
 * RFC 4180: fields with commas, quotes or line breaks are quoted, quotes doubled;
 * missing values are empty. Text is made printable, as on the console (one line,
 * control characters shown as escapes), so `cat` or a pager shows it and acts on
 * nothing; text that a spreadsheet would run as a formula (a transcript starting
 * with `=`, say) is prefixed with `'`.
 */
function csv(head: string[], rows: unknown[][]): string {
  const field = (value: unknown): string => {
    // A number that is not finite has no figure: the cell stays empty, as a missing value's does.
    if (value === undefined || value === null || (typeof value === 'number' && !Number.isFinite(value))) return '';
    const text =
      typeof value === 'string'
        ? formulaSafe(printable(value))
        : typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : JSON.stringify(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [head, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

const formulaSafe = (text: string): string => (/^[=+\-@]/.test(text) ? `'${text}` : text);
