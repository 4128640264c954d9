import { readFile } from 'node:fs/promises';
import { elapsed } from '../metrics/anchors.js';
import { measure, metricByName, type PointMetric } from '../metrics/catalog.js';
import { firstAudio, firstText, responseGeneration, streamEmittedMs, streamGeneration } from '../metrics/s2s.js';
import { sessionView, type ResponseView, type SessionView } from '../views/session-view.js';
import { ReportError } from './report-error.js';
import type { DuplexRows, Report } from './schema.js';

/**
 * `duplex_metrics.json`, interchangeable with vLLM-Omni's (`vllm bench omni-duplex-eval`,
 * `duplex_session_metrics.py`): one row per response and per session, each tagged with
 * `split` and `sample_id`, and the summaries recomputed from every row. A file already
 * there is merged by vLLM-Omni's rule: its rows whose `(split, sample_id)` an incoming
 * row has are replaced, its keyless rows kept, the incoming rows appended.
 */
export const DUPLEX_METRICS_FILENAME = 'duplex_metrics.json';

type Row = Record<string, unknown>;

export interface DistributionSummary {
  count: number;
  mean: number;
  p50: number;
  p99: number;
}

export interface DuplexMetrics {
  duplex_request_metrics: Row[];
  duplex_session_metrics: Row[];
  [summary: string]: unknown;
}

/** vLLM-Omni's `distribution_summary`: finite non-negative values, nearest-rank percentiles, rounded; null when none. */
export function distributionSummary(values: readonly unknown[], digits = 3): DistributionSummary | null {
  const kept = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0).sort((a, b) => a - b);
  if (kept.length === 0) return null;
  const rank = (p: number): number => kept[Math.max(0, Math.ceil(p * kept.length) - 1)]!;
  const round = (v: number): number => Number(v.toFixed(digits));
  return { count: kept.length, mean: round(kept.reduce((a, b) => a + b, 0) / kept.length), p50: round(rank(0.5)), p99: round(rank(0.99)) };
}

const round3 = (v: number): number => Number(v.toFixed(3));
const round6 = (v: number): number => Number(v.toFixed(6));
const rounded = (v: number | undefined): number | null => (v === undefined ? null : round3(v));
const rtfOf = (generation: number | null, duration: number): number | null => (generation !== null && duration > 0 ? round6(generation / duration) : null);

/** The catalog's entry for a figure the file shares with it, so both define it once. */
function catalogMetric(name: string): PointMetric {
  const metric = metricByName(name);
  if (metric?.scope !== 'response' && metric?.scope !== 'session') throw new Error(`the metric catalog has no response or session metric ${name}`);
  return metric;
}
const RESPONSE_TTFT = catalogMetric('response_ttft_ms');
const RESPONSE_TTFP = catalogMetric('response_ttfp_ms');
const SERVER_TTFT = catalogMetric('server_ttft_ms');
const SERVER_TTFP = catalogMetric('server_ttfp_ms');
const STREAM_TTFT = catalogMetric('stream_ttft_ms');
const STREAM_TTFP = catalogMetric('stream_ttfp_ms');
const STREAM_RTF = catalogMetric('stream_rtf');

/** A catalog metric on a view, rounded as the file rounds milliseconds; null without one. */
const figure = (metric: PointMetric, view: ResponseView | SessionView): number | null => rounded(measure(metric, view));

const ORIGIN = {
  client_commit: 'client input commit sent to first non-empty delta / first audio packet received',
  client_response_created: 'response.created client receive to first non-empty delta / first audio packet received',
  rtf: 'response.created client receive to last audio packet divided by emitted audio duration',
};
const STREAM_ORIGIN = {
  ttft: 'input stream start to first non-empty text delta',
  ttfp: 'input stream start to first audio packet',
  rtf: 'input stream start-to-last-audio receive time divided by total emitted audio duration; includes concurrent realtime input',
};

/**
 * The request row of one response; the server's own TTFT/TTFP take precedence, as in
 * vLLM-Omni, with their origin. Its rtf divides the row's own rounded columns, so a
 * reader recomputes it exactly from them.
 */
function requestRow(r: ResponseView, index: number, identity: Row): Row {
  const created = r.started?.t;
  const [serverTtft, serverTtfp] = [measure(SERVER_TTFT, r), measure(SERVER_TTFP, r)];
  const serverOrigin = `server: ${r.started?.serverMetrics?.origin ?? 'server_request_start_and_client_receive'}`;
  const generation = rounded(responseGeneration(r));
  const clientOrigin = r.requested ? ORIGIN.client_commit : ORIGIN.client_response_created;
  return {
    ...identity,
    request_index: index,
    response_id: r.id,
    ttft_ms: serverTtft ?? figure(RESPONSE_TTFT, r),
    ttfp_ms: serverTtfp ?? figure(RESPONSE_TTFP, r),
    audio_generation_ms: generation,
    audio_duration_ms: round3(r.audio.emittedMs),
    rtf: rtfOf(generation, r.audio.emittedMs),
    client_ttft_ms: rounded(elapsed(created, firstText(r))),
    client_ttfp_ms: rounded(elapsed(created, firstAudio(r))),
    measurement_origin: {
      ttft: serverTtft !== undefined ? serverOrigin : clientOrigin,
      ttfp: serverTtfp !== undefined ? serverOrigin : clientOrigin,
      rtf: ORIGIN.rtf,
    },
  };
}

/** The rows of one speech-to-speech session, taken from its view while its timeline is at hand (`SessionFacts`). */
export function duplexSessionRows(view: SessionView): DuplexRows {
  const rows = view.responses.map((r, i) => requestRow(r, i, {}));
  const column = (name: string): unknown[] => rows.map((row) => row[name]);
  const rtf = measure(STREAM_RTF, view);
  return {
    requests: view.responses.map((r, i) => ({ input: r.input, row: rows[i]! })),
    session: {
      audio_turn_count: rows.length,
      ttft_ms: distributionSummary(column('ttft_ms')),
      ttfp_ms: distributionSummary(column('ttfp_ms')),
      rtf: distributionSummary(column('rtf'), 6),
      client_ttft_ms: distributionSummary(column('client_ttft_ms')),
      client_ttfp_ms: distributionSummary(column('client_ttfp_ms')),
      stream_ttft_ms: figure(STREAM_TTFT, view),
      stream_ttfp_ms: figure(STREAM_TTFP, view),
      stream_rtf: rtf === undefined ? null : round6(rtf),
      stream_audio_generation_ms: rounded(streamGeneration(view)),
      stream_audio_duration_ms: round3(streamEmittedMs(view)),
      stream_measurement_origin: STREAM_ORIGIN,
    },
  };
}

/** The rows of a report's measured, completed speech-to-speech sessions. */
export function duplexRows(report: Report): { requests: Row[]; sessions: Row[] } {
  const requests: Row[] = [];
  const sessions: Row[] = [];
  for (const benchmark of report.benchmarks) {
    for (const session of benchmark.sessions) {
      if (session.phase !== 'measured' || session.outcome.status !== 'completed') continue;
      const rows = session.facts.duplex ?? duplexSessionRows(sessionView(session.timeline!));
      const sessionId = `${benchmark.label}/${session.index}`;
      const identity = (input: number): Row => ({
        split: session.split,
        sample_id: session.sampleIds[input] ?? session.sampleIds[0] ?? null,
        session_id: sessionId,
      });
      for (const { input, row } of rows.requests) requests.push({ ...identity(input), ...row });
      sessions.push({ ...identity(0), ...rows.session });
    }
  }
  return { requests, sessions };
}

/** The report of these rows: the rows, the stream summaries and the response-latency aggregates, vLLM-Omni's field names. */
export function duplexReport(requests: Row[], sessions: Row[]): DuplexMetrics {
  const result: DuplexMetrics = { duplex_request_metrics: requests, duplex_session_metrics: sessions };
  for (const [field, key, digits] of [
    ['stream_ttft_ms', 'duplex_stream_ttft_ms', 3],
    ['stream_ttfp_ms', 'duplex_stream_ttfp_ms', 3],
    ['stream_rtf', 'duplex_stream_rtf', 6],
  ] as const) {
    const summary = distributionSummary(
      sessions.map((s) => s[field]),
      digits,
    );
    if (summary) result[key] = summary;
  }
  for (const [field, key] of [
    ['ttft_ms', 'duplex_response_ttft_ms'],
    ['ttfp_ms', 'duplex_response_ttfp_ms'],
    ['client_ttft_ms', 'duplex_client_ttft_ms'],
    ['client_ttfp_ms', 'duplex_client_ttfp_ms'],
  ] as const) {
    const summary = distributionSummary(requests.map((r) => r[field]));
    if (!summary) continue;
    result[`num_${key}`] = summary.count;
    result[`mean_${key}`] = summary.mean;
    result[`median_${key}`] = summary.p50;
    result[`p99_${key}`] = summary.p99;
  }
  return result;
}

/** A row's merge key, `(split, sample_id)`, when it has both as non-empty strings. */
function keyOf(row: Row): string | undefined {
  const { split, sample_id: sample } = row;
  return typeof split === 'string' && split && typeof sample === 'string' && sample ? JSON.stringify([split, sample]) : undefined;
}

/** vLLM-Omni's `merge_metric_rows`. */
export function mergeRows(existing: readonly Row[], incoming: readonly Row[]): Row[] {
  const keys = new Set(incoming.map(keyOf).filter((k) => k !== undefined));
  return [
    ...existing.filter((row) => {
      const key = keyOf(row);
      return key === undefined || !keys.has(key);
    }),
    ...incoming,
  ];
}

/** Merges `incoming` into the file's existing report, if there is one; a file that is not one is a ReportError naming it and the field. */
export async function mergeDuplexMetrics(path: string, incoming: { requests: Row[]; sessions: Row[] }): Promise<DuplexMetrics> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new ReportError(`${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); move it away or fix it`);
  }
  if (text === undefined) return duplexReport(incoming.requests, incoming.sessions);
  let existing: unknown;
  try {
    existing = JSON.parse(text);
  } catch {
    throw new ReportError(`${path} is not JSON; move it away or fix it, so its rows are not overwritten`);
  }
  if (typeof existing !== 'object' || existing === null || Array.isArray(existing))
    throw new ReportError(`${path} must hold a JSON object, as vLLM-Omni's duplex_metrics.json does`);
  const rows = (field: string): Row[] => {
    const value = (existing as Row)[field];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw new ReportError(`${path}: "${field}" must be a JSON list`);
    if (!value.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row)))
      throw new ReportError(`${path}: "${field}" entries must be JSON objects`);
    return value as Row[];
  };
  return duplexReport(mergeRows(rows('duplex_request_metrics'), incoming.requests), mergeRows(rows('duplex_session_metrics'), incoming.sessions));
}
