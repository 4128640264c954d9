import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeMetrics } from '../metrics/catalog.js';
import { normalizerChoice, type NormalizerChoice } from '../metrics/normalizers/index.js';
import { DEFAULT_RULES, diarizationRecord, type DiarizationRules } from '../metrics/diarization/rules.js';
import { PERCENTILE_METHOD } from '../metrics/stats.js';
import { buildBenchmark, measuredOf, type Measured } from './build.js';
import { lastEndMs } from '../metrics/cold-start.js';
import { levelSettings } from './telemetry.js';
import { buildRecord } from './record.js';
import { REPORT_SCHEMA, REPORT_VERSION, type Report } from './schema.js';
import { upgradeRecord, upgradeReport } from './migrate.js';
import { redactUrl } from './redact.js';
import { onClockOf, readSessionLog } from './session-log.js';
import { sessionEndMs } from '../timeline/types.js';
import { NO_DELAY } from '../runtime/delay.js';

/** A report file that cannot be used; the message names it and says why. */
export class ReportError extends Error {
  override name = 'ReportError';
}

/**
 * Reads a report (a `report.json`, or a run folder holding one) and recomputes every
 * figure from its timelines. Sessions in the folder's session log that the report
 * lacks (a run that was killed) are added to their levels first, so nothing measured
 * is lost. With `normalizer` (`auto`, or a normalizer's id) every transcript is scored
 * with it instead of the report's own choice; with `rescore`, speaker labels are scored
 * by the rules it makes of the report's own.
 */
export async function readReport(
  path: string,
  normalizer?: NormalizerChoice,
  rescore?: (recorded: DiarizationRules) => DiarizationRules,
  coldGapMs?: number,
): Promise<Report> {
  const file = path.endsWith('.json') ? path : join(path, 'report.json');
  let report: Report;
  try {
    report = JSON.parse(await readFile(file, 'utf8')) as Report;
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ReportError(`${file}: cannot read the report (${why}); give a report.json or a run folder`);
  }
  if (report.schema !== REPORT_SCHEMA) throw new ReportError(`${file} is not a voxbench report (no "schema": "${String(REPORT_SCHEMA)}")`);
  const version: number = report.version;
  if (version !== REPORT_VERSION && version !== 1) {
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
  // Indices already held per level, so each logged session is checked in constant time.
  const levels = new Map<string, { measured: Measured; indices: Set<number> }>(
    report.benchmarks.map((b) => {
      const measured = measuredOf(b);
      return [b.label, { measured, indices: new Set(measured.records.map((r) => r.index)) }];
    }),
  );
  for (const entry of await readSessionLog(dirname(file))) {
    const { level, profile } = entry;
    const record = onClockOf({ ...entry, record: upgradeRecord(entry.record) }, report.startedAt);
    const known = levels.get(level) ?? {
      measured: {
        label: level, // the level it was logged under, as the report would label it (a proxy's `observed stt`)
        profile,
        startMs: record.timeline.plannedStartMs,
        endMs: record.timeline.plannedStartMs,
        stoppedBy: 'interrupted' as const,
        eventLoopDelay: NO_DELAY,
        capHits: 0,
        records: [],
      },
      indices: new Set<number>(),
    };
    levels.set(level, known);
    if (known.indices.has(record.index)) continue;
    known.indices.add(record.index);
    const { measured } = known;
    measured.records.push(record);
    measured.startMs = Math.min(measured.startMs, record.timeline.plannedStartMs);
    measured.endMs = Math.max(measured.endMs, sessionEndMs(record.timeline));
  }
  return recompute(
    report,
    [...levels.values()].map((l) => l.measured),
  );
}

/** The report with every figure recomputed, from `levels` (default: its own), with the current metric definitions. */
export function recompute(report: Report, levels: Measured[] = report.benchmarks.map(measuredOf)): Report {
  const { record: _, ...rest } = report;
  const partial: Omit<Report, 'record'> = {
    ...rest,
    metricDefinitions: describeMetrics(),
    percentileMethod: PERCENTILE_METHOD,
    benchmarks: levels.map((measured, i) =>
      buildBenchmark(measured, levelSettings(report.config, report.telemetry, measured), lastEndMs(levels.slice(0, i).flatMap((l) => l.records))),
    ),
  };
  return { ...partial, record: buildRecord(partial, report.config.meta) };
}
