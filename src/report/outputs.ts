import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DUPLEX_METRICS_FILENAME, duplexRows, mergeDuplexMetrics } from './duplex-metrics.js';
import { reportJsonChunks } from './report-json.js';
import type { Report } from './schema.js';
import { writeText } from './write-text.js';
import { onClockOf, readLoggedAt, SESSION_LOG, writeSessionLog, type LoggedSession } from './session-log.js';
import { upgradeRecord } from './migrate.js';
import { DEFAULT_OUTPUTS, type OutputFormat } from './output-formats.js';

/**
 * Writes the report in each format (JSON always, HTML unless `formats` leaves it out; `duplex_metrics.json` always for the
 * `s2s` task, merged into one already there, after the rest, so a file that cannot be
 * merged never costs the report) into `dir`; returns the paths written.
 */
export async function writeOutputs(report: Report, dir: string, formats: readonly OutputFormat[] = DEFAULT_OUTPUTS): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  // Each renderer is loaded only for its format: a run that writes no page need not load the page's 30 modules.
  const [csv, markdown, html] = await Promise.all([
    formats.includes('csv') ? import('./csv.js') : undefined,
    formats.includes('md') ? import('./markdown.js') : undefined,
    formats.includes('html') ? import('./html/index.js') : undefined,
  ]);
  // The few sessions a chart draws get their timelines back from the session log.
  if (html) await readDrawnTimelines(report);
  // Each file is rendered just before it is written and let go after: at 100,000 sessions the CSV files, the page and
  // report.json's pieces held at once added about 170 MiB to the peak (issue 38).
  const files: Record<string, () => Iterable<string>> = {};
  if (csv) Object.assign(files, csv.csvFiles(report));
  if (markdown) files['summary.md'] = () => [markdown.renderMarkdown(report)];
  // A report of no level (a run stopped before its first began) has no page to show.
  if (html && report.benchmarks.length > 0) files['report.html'] = () => [html.renderHtml(report)];
  // report.json names the log that holds the timelines: one held only in memory (a merge, an older report) is written there.
  if (!(await exists(join(dir, SESSION_LOG)))) await keepSessionLog(report, dir);
  const reportPath = join(dir, 'report.json');
  await writeText(reportPath, reportJsonChunks({ ...report, sessionLog: SESSION_LOG }));
  for (const [name, lines] of Object.entries(files)) await writeText(join(dir, name), lines());
  const written = [reportPath, ...Object.keys(files).map((name) => join(dir, name))];
  if (formats.includes('duplex') || report.config.task === 's2s') {
    const path = join(dir, DUPLEX_METRICS_FILENAME);
    await writeText(path, [`${JSON.stringify(await mergeDuplexMetrics(path, duplexRows(report)), null, 2)}\n`]);
    written.push(path);
  }
  return written;
}

/** Reads back from the session log the timelines of the sessions the page draws (`drawnSessions`), where they are not held: before `renderHtml`. */
export async function readDrawnTimelines(report: Report): Promise<void> {
  const { drawnSessions } = await import('./html/index.js');
  for (const session of drawnSessions(report)) {
    if (session.timeline !== undefined || session.logAt === undefined) continue;
    const entry = await readLoggedAt(session.logAt);
    session.timeline = onClockOf({ ...entry, record: upgradeRecord(entry.record) }, report.startedAt).timeline;
  }
}

/**
 * Gives a folder without a session log the one its report.json will name: the log the
 * sessions were read from (a report rendered into another folder), else the timelines the
 * report holds in memory (a merge, an older report that kept them in report.json).
 */
async function keepSessionLog(report: Report, dir: string): Promise<void> {
  const source = report.benchmarks.flatMap((b) => b.sessions).find((s) => s.logAt !== undefined)?.logAt?.file;
  if (source !== undefined) await copyFile(source, join(dir, SESSION_LOG));
  else await writeSessionLog(dir, heldTimelines(report));
}

/** The report's sessions whose timelines it holds, as session log entries. */
function* heldTimelines(report: Report): Generator<LoggedSession> {
  for (const b of report.benchmarks) {
    for (const { phase: _p, start: _s, metrics: _m, figures: _f, facts: _x, logAt: _l, timeline, ...record } of b.sessions) {
      if (timeline !== undefined) yield { level: b.label, profile: b.profile, startedAt: report.startedAt, record: { ...record, timeline } };
    }
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
