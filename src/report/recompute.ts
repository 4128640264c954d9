import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeMetrics } from '../metrics/catalog.js';
import { normalizerChoice, type NormalizerChoice } from '../metrics/normalizers/index.js';
import { DEFAULT_RULES, diarizationRecord, type DiarizationRules } from '../metrics/diarization/rules.js';
import { PERCENTILE_METHOD } from '../metrics/stats.js';
import { buildBenchmark, digest, measuredOf, type Measured } from './build.js';
import { lastEndMs } from '../metrics/cold-start.js';
import { levelSettings } from './telemetry.js';
import { buildRecord } from './record.js';
import { REPORT_SCHEMA, REPORT_VERSION, type Benchmark, type HeldReport, type Report, type ReportSession } from './schema.js';
import { upgradeRecord, upgradeReport } from './migrate.js';
import { redactUrl } from './redact.js';
import { SESSION_LOG } from './session-log.js';
import { digestLog } from './digest-log.js';
import { parseReportFile } from './report-file.js';
import type { SessionRecord, SpeechAnalysis } from '../timeline/types.js';
import { NO_DELAY } from '../runtime/delay.js';

import { ReportError } from './report-error.js';

export { ReportError };

/** How `readReport` reads a report. */
export interface ReadOptions {
  /** `auto`, or a normalizer's id: every transcript scored with it instead of the report's own choice. */
  normalizer?: NormalizerChoice;
  /** Speaker labels scored by the rules it makes of the report's own. */
  rescore?: (recorded: DiarizationRules) => DiarizationRules;
  coldGapMs?: number;
  /** Threads that read the session log (`digestLog`; default: as many as it is large enough for, up to the cores). */
  threads?: number;
}

/**
 * Reads a report (a `report.json`, or a run folder holding one) and recomputes every
 * figure from its timelines, read from the session log beside it one session at a time
 * (version 3 keeps them there only; older reports hold theirs). Each session's figures
 * and facts are taken as it is read and its timeline dropped, unless `keepTimelines`
 * (a merge, which writes them again); the few a chart draws are read back from the log.
 * Sessions in the log that the report lacks (a run that was killed) are added to their
 * levels, so nothing measured is lost.
 */
export async function readReport(path: string, options?: ReadOptions): Promise<Report>;
export async function readReport(path: string, options: ReadOptions, keepTimelines: true): Promise<HeldReport>;
export async function readReport(path: string, { normalizer, rescore, coldGapMs, threads }: ReadOptions = {}, keepTimelines = false): Promise<Report> {
  const file = path.endsWith('.json') ? path : join(path, 'report.json');
  let report: Report;
  try {
    report = parseReportFile(await readFile(file)) as Report;
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ReportError(`${file}: cannot read the report (${why}); give a report.json or a run folder`);
  }
  if (report.schema !== REPORT_SCHEMA) throw new ReportError(`${file} is not a voxbench report (no "schema": "${String(REPORT_SCHEMA)}")`);
  const version: number = report.version;
  if (version < 1 || version > REPORT_VERSION || !Number.isInteger(version)) {
    throw new ReportError(`${file} is a version ${version} report; this voxbench reads versions 1 to ${String(REPORT_VERSION)}`);
  }
  if (!Array.isArray(report.benchmarks) || typeof report.config !== 'object' || report.config === null) {
    throw new ReportError(`${file} is an incomplete voxbench report (no benchmarks or config)`);
  }
  report = upgradeReport(report);
  if (normalizer !== undefined) report = { ...report, config: { ...report.config, normalizer } };
  // Figures are scored again by this voxbench, so its words for the rules (the fixed ones too) are the ones that hold.
  const recorded = report.config.diarization?.rules;
  if (rescore || recorded) {
    report = { ...report, config: { ...report.config, diarization: diarizationRecord(rescore ? rescore(recorded ?? DEFAULT_RULES) : recorded!) } };
  }
  if (coldGapMs !== undefined) report = { ...report, config: { ...report.config, window: { ...report.config.window, coldGapMs } } };
  if (report.config.normalizer !== undefined && normalizerChoice(report.config.normalizer) === undefined) {
    throw new ReportError(
      `${file} scores transcripts with normalizer ${report.config.normalizer}, which this voxbench does not know; render it with --normalizer`,
    );
  }
  // A report written by an older voxbench may hold credentials the rules now catch.
  report = { ...report, config: { ...report.config, target: redactUrl(report.config.target) } };
  const { config } = report;
  // Per level: what it measured, the indices held, and the sessions the report names whose timelines are in the log.
  // A session the log holds maps to the after-run check's findings the report kept for it, if any.
  const levels = new Map<string, { measured: Measured; indices: Set<number>; inLog: Map<number, SpeechAnalysis[] | undefined> }>();
  for (const b of report.benchmarks as StoredBenchmark[]) {
    const measured: Measured = { ...measuredOf({ ...b, sessions: [] }), records: [] };
    const inLog = new Map<number, SpeechAnalysis[] | undefined>();
    for (const session of b.sessions) {
      const { phase: _p, start: _s, metrics: _m, analysis, ...record } = session;
      if (record.timeline === undefined) inLog.set(record.index, analysis);
      else measured.records.push(digest(upgradeRecord(record as SessionRecord), config, true));
    }
    levels.set(b.label, { measured, indices: new Set(measured.records.map((r) => r.index)), inLog });
  }
  // The stored sessions are read: not held while the log is (100,000 of them are half a GB of objects).
  report = { ...report, benchmarks: report.benchmarks.map((b) => ({ ...b, sessions: [] })) };
  const log = join(dirname(file), SESSION_LOG);
  const analyses = [...levels].flatMap(([level, { inLog }]) =>
    [...inLog].flatMap(([index, analysis]) => (analysis ? [[level, index, analysis] as [string, number, SpeechAnalysis[]]] : [])),
  );
  const digests = await digestLog(log, { startedAt: report.startedAt, settings: config, analyses }, keepTimelines, threads);
  const named = [...levels.values()].reduce((n, l) => n + l.inLog.size, 0);
  if (!digests && named > 0) {
    throw new ReportError(
      `${log} is missing: ${file} keeps its ${named} sessions' timelines there (report version 3); copy the run folder with its session log`,
    );
  }
  for await (const logged of digests ?? []) {
    const known = levels.get(logged.level);
    if (known?.indices.has(logged.index)) continue;
    const session = logged.session();
    const level = known ?? {
      measured: {
        label: logged.level, // the level it was logged under, as the report would label it (a proxy's `observed stt`)
        profile: logged.profile,
        startMs: session.figures.plannedStartMs,
        endMs: session.figures.plannedStartMs,
        stoppedBy: 'interrupted' as const,
        eventLoopDelay: NO_DELAY,
        capHits: 0,
        records: [],
      },
      indices: new Set<number>(),
      inLog: new Map<number, SpeechAnalysis[] | undefined>(),
    };
    levels.set(logged.level, level);
    level.indices.add(logged.index);
    const { measured } = level;
    measured.records.push(session);
    // A session the report named is within its level's span already; one it lacked widens it.
    if (level.inLog.delete(logged.index)) continue;
    measured.startMs = Math.min(measured.startMs, session.figures.plannedStartMs);
    measured.endMs = Math.max(measured.endMs, session.figures.endMs);
  }
  const missing = [...levels.values()].reduce((n, l) => n + l.inLog.size, 0);
  if (missing > 0) {
    throw new ReportError(`${log} lacks ${missing} of the ${named} sessions ${file} names; it is not this report's session log (copy the run folder whole)`);
  }
  return recompute(
    report,
    [...levels.values()].map((l) => l.measured),
  );
}

/** `readReport` that keeps every session's timeline (a merge, `replay extract`): memory grows with them. */
export function readHeldReport(path: string): Promise<HeldReport> {
  return readReport(path, {}, true);
}

/** A level as stored: a version 3 session has no timeline (it is in the log), an older one has. */
type StoredBenchmark = Omit<Benchmark, 'sessions'> & { sessions: Array<Omit<ReportSession, 'figures' | 'facts'>> };

/** The report with every figure recomputed, from `levels` (default: its own), with the current metric definitions. */
export function recompute(report: HeldReport): HeldReport;
export function recompute(report: Report, levels?: Measured[]): Report;
export function recompute(report: Report, levels: Measured[] = report.benchmarks.map(measuredOf)): Report {
  const { record: _, ...rest } = report;
  const partial: Omit<Report, 'record'> = {
    ...rest,
    version: REPORT_VERSION,
    metricDefinitions: describeMetrics(),
    percentileMethod: PERCENTILE_METHOD,
    benchmarks: levels.map((measured, i) =>
      buildBenchmark(measured, levelSettings(report.config, report.telemetry, measured), lastEndMs(levels.slice(0, i).flatMap((l) => l.records))),
    ),
  };
  return { ...partial, record: buildRecord(partial, report.config.meta) };
}
