import { METRICS } from '../metrics/catalog.js';
import { turnViews } from '../metrics/turns.js';
import type { Report } from './schema.js';

/** The CSV files of a report, by file name: one row per turn, per session, and per benchmark level. */
export function renderCsv(report: Report): Record<string, string> {
  return { 'turns.csv': turnsCsv(report), 'sessions.csv': sessionsCsv(report), 'levels.csv': levelsCsv(report) };
}

const header = (name: string, unit: string): string => `${name} [${unit}]`;
const turnMetrics = METRICS.filter((m) => m.scope === 'turn');
const sessionMetrics = METRICS.filter((m) => m.scope === 'session');
const STATS = ['count', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const;

function turnsCsv(report: Report): string {
  const rows = report.benchmarks.flatMap((b) =>
    b.sessions.flatMap((s) =>
      turnViews(s.timeline).map((view, i) => [
        b.label, s.index, s.phase, s.outcome.status, view.turn, view.plan?.sampleId, view.plan?.split, view.plan?.eosSource,
        view.final ? 'yes' : 'no', view.transcript, view.plan?.reference,
        ...turnMetrics.map((m) => s.metrics.turns[i]?.[m.name]),
      ]),
    ),
  );
  return csv(['level', 'session', 'phase', 'outcome', 'turn', 'sample_id', 'split', 'eos_source', 'finalized', 'transcript', 'reference', ...turnMetrics.map((m) => header(m.name, m.unit))], rows);
}

function sessionsCsv(report: Report): string {
  const rows = report.benchmarks.flatMap((b) =>
    b.sessions.map((s) => {
      const failure = s.outcome.status === 'failed' ? s.outcome.failure : undefined;
      const incomplete = s.outcome.status === 'incomplete' ? s.outcome.reason : undefined;
      return [
        b.label, s.index, s.phase, s.outcome.status, failure?.class ?? incomplete, failure?.stage ?? (s.outcome.status === 'incomplete' ? s.outcome.stage : undefined),
        failure?.code, failure?.httpStatus, s.timeline.close?.code, s.timeline.close?.reason, s.timeline.close?.by, failure?.message,
        s.timeline.turns.map((t) => t.sampleId).join(' '),
        ...sessionMetrics.map((m) => s.metrics.session[m.name]),
      ];
    }),
  );
  return csv(
    ['level', 'session', 'phase', 'outcome', 'failure_class', 'stage', 'server_code', 'http_status', 'close_code', 'close_reason', 'closed_by', 'message', 'sample_ids', ...sessionMetrics.map((m) => header(m.name, m.unit))],
    rows,
  );
}

function levelsCsv(report: Report): string {
  const metricColumns = METRICS.flatMap((m) => STATS.map((stat) => ({ name: m.name, stat, head: header(`${m.name} ${stat}`, stat === 'count' ? 'count' : m.unit) })));
  const rows = report.benchmarks.map((b) => {
    const { sessions, throughput, quality } = b.summary;
    return [
      b.label, sessions.total, sessions.completed, sessions.failed, sessions.incomplete, b.summary.excluded.warmup + b.summary.excluded.cooldown,
      b.summary.errorRate, throughput.wallS, throughput.audioS, throughput.audioSPerWallS, throughput.sessionsPerS, quality.wer,
      b.summary.slos.length === 0 ? '' : b.summary.slos.every((slo) => slo.pass) ? 'pass' : 'fail',
      b.clientHealth.bottleneck ? 'bottleneck' : 'ok', b.stoppedBy,
      ...metricColumns.map(({ name, stat }) => b.summary.metrics[name]?.[stat]),
    ];
  });
  return csv(
    ['level', 'sessions', 'completed', 'failed', 'incomplete', 'excluded', header('error_rate', 'ratio'), header('wall', 's'), header('audio', 's'),
      header('throughput', 'audio s/s'), header('throughput', 'sessions/s'), header('corpus_wer', 'ratio'), 'slos', 'client', 'stopped_by',
      ...metricColumns.map((c) => c.head)],
    rows,
  );
}

/**
 * RFC 4180: fields with commas, quotes or line breaks are quoted, quotes doubled;
 * missing values are empty. Text that a spreadsheet would run as a formula (a
 * transcript starting with `=`, say) is prefixed with `'`.
 */
function csv(head: string[], rows: unknown[][]): string {
  const field = (value: unknown): string => {
    if (value === undefined || value === null) return '';
    const text = typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [head, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}
