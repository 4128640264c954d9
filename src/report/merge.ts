import { createHash } from 'node:crypto';
import { shiftTimeline, type SessionRecord } from '../timeline/types.js';
import type { Measured } from './build.js';
import { measuredOf } from './build.js';
import { recompute, ReportError } from './recompute.js';
import type { HeldReport, Report } from './schema.js';
import { NO_DELAY, worstDelay } from '../runtime/delay.js';
import { mergeTelemetry } from './merge-telemetry.js';

/**
 * Merges runs or shards exactly. Benchmarks are matched by level; within a level,
 * sessions are rows keyed by (run, shard, session index), the run being its `runId`
 * (shared by a run's shards and its resumptions) or, in reports from before run ids,
 * the start of the run that measured the session (a resumed run's kept sessions keep
 * their first run's), so a sample used more than once stays once per use, and only the
 * same session merged twice (a run and its resumption, or a report given twice) is one
 * row: the later report's. Keying by sample ids would keep one session per sample.
 * Each report's times are moved onto the first report's clock by their wall-clock
 * start difference, and every figure is recomputed from the merged rows, never
 * averaged. Shards of one run make one unsharded report of it; a dataset that several
 * reports ran (the shards' own) counts once. A session of a run other than the first
 * report's is marked with its run's start (`resumedFrom`), so throughput takes the union
 * of the runs' measured spans: sequential runs do not count the gap between them.
 * Every part's scraped series (`--scrape`) are kept, moved onto the same clock.
 *
 * Reports of different workloads (task, protocol, target or model) are refused: their
 * sessions would pool into one level, figured as the first report's task. With
 * `allowMixed` they merge, each report's levels labelled by its source
 * (`source: level`), so every part keeps its own figures.
 */
export function mergeReports(reports: readonly Report[], sources: readonly string[], options: { allowMixed?: boolean } = {}): HeldReport {
  const [first] = reports;
  if (!first) throw new Error('nothing to merge');
  const mixed = checkWorkloads(reports, sources, options.allowMixed ?? false);
  checkShards(reports, sources);
  const origin = Date.parse(first.startedAt);
  const levels = new Map<string, Measured & { rows: Map<string, SessionRecord> }>();
  reports.forEach((report, i) => {
    const delta = Date.parse(report.startedAt) - origin;
    const ownRun = report.startedAt === first.startedAt;
    for (const benchmark of report.benchmarks) {
      const measured = measuredOf(benchmark);
      const label = mixed ? `${sources[i] ?? String(i)}: ${benchmark.label}` : benchmark.label;
      const level = levels.get(label) ?? {
        ...measured,
        ...(mixed ? { label } : {}),
        startMs: Infinity,
        endMs: -Infinity,
        capHits: 0,
        rows: new Map(),
      };
      level.startMs = Math.min(level.startMs, measured.startMs + delta);
      level.endMs = Math.max(level.endMs, measured.endMs + delta);
      level.capHits += measured.capHits;
      level.stoppedBy ??= measured.stoppedBy;
      level.eventLoopDelay = worstDelay([level.eventLoopDelay, measured.eventLoopDelay]);
      if (measured.receiveDelay) level.receiveDelay = worstDelay([level.receiveDelay ?? NO_DELAY, measured.receiveDelay]);
      for (const session of measured.records) {
        // measuredOf gives a session whose timeline is held as a record; the others cannot be moved onto the merged clock.
        if (session.timeline === undefined) throw new Error("mergeReports needs every session's timeline: read the reports with keepTimelines");
        const record = session as SessionRecord;
        const key = `${report.config.runId ?? record.resumedFrom ?? report.startedAt}\u0000${report.config.shard?.index ?? ''}\u0000${record.index}`;
        level.rows.delete(key); // a replaced row moves to the end, where the later report put it
        const run = ownRun || record.resumedFrom !== undefined ? {} : { resumedFrom: report.startedAt };
        level.rows.set(key, { ...record, ...run, timeline: shiftTimeline(record.timeline, delta) });
      }
      levels.set(label, level);
    }
  });
  const datasets = [...new Map(reports.map((r) => [r.dataset.fingerprint, r.dataset])).values()];
  const runIds = new Set(reports.map((r) => r.config.runId));
  const telemetry = mergeTelemetry(reports.map((r) => ({ telemetry: r.telemetry, deltaMs: Date.parse(r.startedAt) - origin })));
  const { telemetry: _firstTelemetry, ...firstRest } = first;
  const merged: Report = {
    ...firstRest,
    ...(telemetry ? { telemetry } : {}),
    config: { ...first.config, shard: undefined, ...(runIds.size > 1 ? { runId: undefined } : {}) },
    dataset:
      datasets.length === 1
        ? first.dataset
        : {
            ...first.dataset,
            fingerprint: `merged:sha256:${createHash('sha256')
              .update(datasets.map((d) => d.fingerprint).join('\n'))
              .digest('hex')}`,
            count: datasets.reduce((n, d) => n + d.count, 0),
            skipped: datasets.reduce((n, d) => n + d.skipped, 0),
            totalAudioS: datasets.reduce((n, d) => n + d.totalAudioS, 0),
            problems: datasets.flatMap((d) => d.problems),
          },
    mergedFrom: [...sources],
  };
  // One run's shards and resumptions keep their sessions' own indices; sessions of different runs are numbered anew, in order.
  const oneRun = runIds.size === 1 && first.config.runId !== undefined;
  const rowsOf = (rows: Map<string, SessionRecord>): SessionRecord[] =>
    oneRun ? [...rows.values()].sort((a, b) => a.index - b.index) : [...rows.values()].map((record, index) => ({ ...record, index }));
  // Every row holds its timeline (checked above), so every merged session does.
  return recompute(
    merged,
    [...levels.values()].map(({ rows, ...level }) => ({ ...level, records: rowsOf(rows) })),
  ) as HeldReport;
}

const WORKLOAD = ['task', 'protocol', 'target', 'model'] as const;

/**
 * Whether the reports ran different workloads; refused, with the first pair that
 * differs and how, unless `allowMixed`.
 */
function checkWorkloads(reports: readonly Report[], sources: readonly string[], allowMixed: boolean): boolean {
  // Each run's built-in server listens on a port of its own: the same target.
  const workload = ({ config }: Report) => ({ ...config, target: config.builtInServer ? 'the built-in server' : config.target });
  const first = workload(reports[0]!);
  for (const [i, report] of reports.entries()) {
    const config = workload(report);
    const differs = WORKLOAD.filter((key) => config[key] !== first[key]);
    if (differs.length === 0) continue;
    if (allowMixed) return true;
    const how = differs.map((key) => `${key} ${String(first[key])} vs ${String(config[key])}`).join(', ');
    throw new ReportError(
      `${sources[0] ?? '0'} and ${sources[i] ?? String(i)} ran different workloads (${how}); their figures would pool as one; give --allow-mixed to merge them as separately labelled levels`,
    );
  }
  return false;
}

/** Shards of one run must agree on how many there are; a missing or repeated shard is said, not guessed around. */
function checkShards(reports: readonly Report[], sources: readonly string[]): void {
  const byRun = new Map<string, Array<{ index: number; count: number; source: string }>>();
  reports.forEach((r, i) => {
    const { runId, shard } = r.config;
    if (runId === undefined || !shard) return;
    byRun.set(runId, [...(byRun.get(runId) ?? []), { ...shard, source: sources[i] ?? String(i) }]);
  });
  for (const [runId, shards] of byRun) {
    const counts = new Set(shards.map((s) => s.count));
    if (counts.size > 1)
      throw new ReportError(`run ${runId}: its shards disagree on how many there are (${shards.map((s) => `${s.source}: ${s.index}/${s.count}`).join(', ')})`);
    const count = shards[0]!.count;
    const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !shards.some((s) => s.index === i));
    if (missing.length > 0)
      throw new ReportError(
        `run ${runId}: shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count} missing; give every shard's report (a partial merge would read as the whole run)`,
      );
  }
}
