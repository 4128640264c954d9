import { fromV1, type V1Timeline } from '../timeline/v1.js';
import type { SessionRecord } from '../timeline/types.js';
import { REPORT_VERSION, type Report } from './schema.js';

/**
 * Reports and session logs of earlier versions, brought to the current one. Version 1
 * (streaming speech-to-text only) maps mechanically: its timelines onto the neutral
 * timeline, its task is `stt`. Versions 1 and 2 hold their sessions' timelines in the
 * report itself, which the reader takes from there (version 3 keeps them in the session
 * log). Figures are recomputed afterwards, never migrated.
 */
export function upgradeReport(report: Report): Report {
  if ((report.version as number) !== 1) return report;
  return {
    ...report,
    version: REPORT_VERSION,
    config: { ...report.config, task: 'stt' },
    benchmarks: report.benchmarks.map((b) => ({ ...b, sessions: b.sessions.map((s) => ({ ...s, ...upgradeRecord(s as SessionRecord) })) })),
  };
}

/** A session record of any version, on the current timeline. */
export function upgradeRecord(record: SessionRecord): SessionRecord {
  const timeline = record.timeline as SessionRecord['timeline'] | V1Timeline;
  return 'chunks' in timeline ? { ...record, timeline: fromV1(timeline) } : record;
}
