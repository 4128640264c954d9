import { createHash } from 'node:crypto';
import { shiftTimeline, type SessionRecord } from '../timeline/types.js';
import type { Measured } from './build.js';
import { measuredOf } from './build.js';
import { recompute } from './recompute.js';
import type { Report } from './schema.js';
import { NO_DELAY, worstDelay } from '../load/stamp-probe.js';

/**
 * Merges runs or shards exactly. Benchmarks are matched by level; within a level,
 * sessions are rows keyed by (run, session index), the run being the start of the one
 * that measured the session (a resumed run's kept sessions keep their first run's), so
 * a sample used more than once stays once per use, and only the same session merged
 * twice (a run and its resumption, or a report given twice) is one row: the later
 * report's. Keying by sample ids would keep one session per sample. Each report's times
 * are moved onto the first report's clock by their wall-clock start difference, and
 * every figure is recomputed from the merged rows, never averaged.
 */
export function mergeReports(reports: readonly Report[], sources: readonly string[]): Report {
  const [first] = reports;
  if (!first) throw new Error('nothing to merge');
  const origin = Date.parse(first.startedAt);
  const levels = new Map<string, Measured & { rows: Map<string, SessionRecord> }>();
  for (const report of reports) {
    const delta = Date.parse(report.startedAt) - origin;
    for (const benchmark of report.benchmarks) {
      const measured = measuredOf(benchmark);
      const level = levels.get(benchmark.label) ?? { ...measured, startMs: Infinity, endMs: -Infinity, capHits: 0, rows: new Map() };
      level.startMs = Math.min(level.startMs, measured.startMs + delta);
      level.endMs = Math.max(level.endMs, measured.endMs + delta);
      level.capHits += measured.capHits;
      level.stoppedBy ??= measured.stoppedBy;
      level.eventLoopDelay = worstDelay([level.eventLoopDelay, measured.eventLoopDelay]);
      if (measured.receiveDelay) level.receiveDelay = worstDelay([level.receiveDelay ?? NO_DELAY, measured.receiveDelay]);
      for (const record of measured.records) {
        const key = `${record.resumedFrom ?? report.startedAt}\u0000${record.index}`;
        level.rows.delete(key); // a replaced row moves to the end, where the later report put it
        level.rows.set(key, { ...record, timeline: shiftTimeline(record.timeline, delta) });
      }
      levels.set(benchmark.label, level);
    }
  }
  const merged: Report = {
    ...first,
    dataset: {
      ...first.dataset,
      fingerprint: `merged:sha256:${createHash('sha256').update(reports.map((r) => r.dataset.fingerprint).join('\n')).digest('hex')}`,
      count: reports.reduce((n, r) => n + r.dataset.count, 0),
      skipped: reports.reduce((n, r) => n + r.dataset.skipped, 0),
      totalAudioS: reports.reduce((n, r) => n + r.dataset.totalAudioS, 0),
      problems: reports.flatMap((r) => r.dataset.problems),
    },
    mergedFrom: [...sources],
  };
  return recompute(
    merged,
    [...levels.values()].map(({ rows, ...level }) => ({ ...level, records: [...rows.values()].map((record, index) => ({ ...record, index })) })),
  );
}
