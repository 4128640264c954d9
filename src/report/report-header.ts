import { createReadStream } from 'node:fs';
import type { Report } from './schema.js';

/** What a report says before its figures: what ran, where, on what. */
export type ReportHeader = Omit<Report, 'metricDefinitions' | 'percentileMethod' | 'benchmarks' | 'capacity' | 'record' | 'mergedFrom'>;

/** Where the header ends in `report.json` as `reportJsonChunks` writes it (one-space indent). */
const HEADER_END = '\n "metricDefinitions": ';

/**
 * The start of a `report.json`, up to its dataset: a report of many sessions is longer
 * than the longest string V8 can hold, and its header is all a resumed run checks. A
 * file not laid out as voxbench writes it is parsed whole. Undefined if unreadable.
 */
export async function readReportHeader(file: string): Promise<ReportHeader | undefined> {
  let text = '';
  try {
    for await (const chunk of createReadStream(file, { encoding: 'utf8' })) {
      const from = Math.max(0, text.length - HEADER_END.length);
      text += chunk as string;
      const end = text.indexOf(HEADER_END, from);
      // The piece before the marker ends with the comma after `dataset`.
      if (end >= 0) return JSON.parse(`${text.slice(0, end).replace(/,$/, '')}\n}`) as ReportHeader;
    }
    return JSON.parse(text) as ReportHeader;
  } catch {
    return undefined;
  }
}
