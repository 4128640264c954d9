import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { renderCsv } from './csv.js';
import { DUPLEX_METRICS_FILENAME, duplexRows, mergeDuplexMetrics } from './duplex-metrics.js';
import { renderHtml } from './html/index.js';
import { renderMarkdown } from './markdown.js';
import { reportJsonChunks } from './report-json.js';
import type { Report } from './schema.js';
import { writeText } from './write-text.js';

export const OUTPUT_FORMATS = ['json', 'csv', 'html', 'md', 'duplex'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What a run writes when not told: the document and the page a person opens (rendering it costs about 0.1 s at 10,000 sessions). */
export const DEFAULT_OUTPUTS: readonly OutputFormat[] = ['json', 'html'];

/**
 * Writes the report in each format (JSON always, HTML unless `formats` leaves it out; `duplex_metrics.json` always for the
 * `s2s` task, merged into one already there, after the rest, so a file that cannot be
 * merged never costs the report) into `dir`; returns the paths written.
 */
export async function writeOutputs(report: Report, dir: string, formats: readonly OutputFormat[] = DEFAULT_OUTPUTS): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: Record<string, string> = {};
  if (formats.includes('csv')) Object.assign(files, renderCsv(report));
  if (formats.includes('md')) files['summary.md'] = renderMarkdown(report);
  // A report of no level (a run stopped before its first began) has no page to show.
  if (formats.includes('html') && report.benchmarks.length > 0) files['report.html'] = renderHtml(report);
  const reportPath = join(dir, 'report.json');
  await Promise.all([writeText(reportPath, reportJsonChunks(report)), ...Object.entries(files).map(([name, text]) => writeText(join(dir, name), [text]))]);
  const written = [reportPath, ...Object.keys(files).map((name) => join(dir, name))];
  if (formats.includes('duplex') || report.config.task === 's2s') {
    const path = join(dir, DUPLEX_METRICS_FILENAME);
    await writeText(path, [`${JSON.stringify(await mergeDuplexMetrics(path, duplexRows(report)), null, 2)}\n`]);
    written.push(path);
  }
  return written;
}
