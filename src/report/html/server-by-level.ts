import type { Benchmark, Report } from '../schema.js';
import { seriesOverLevel, seriesTitle, type SeriesOverLevel } from '../telemetry.js';
import { formatPlain } from './format.js';
import { html, type Content } from './markup.js';
import { breakable, note, table } from './section.js';

/** Series shown; the rest are in report.json and server-metrics.csv. */
const SERIES_SHOWN = 12;

/**
 * The scraped series' mean and max in each level, levels in the load curves' order: the
 * server's state beside the curves (e.g. KV-cache use and GPU utilisation at the knee).
 * Nothing without telemetry.
 */
export function serverByLevel(report: Report, levels: readonly Benchmark[]): Content {
  const { telemetry } = report;
  if (!telemetry) return '';
  const over = levels.map((b) => new Map(seriesOverLevel(telemetry, b.startMs, b.endMs).map((o): [unknown, SeriesOverLevel] => [o.series, o])));
  const seen = telemetry.series.filter((s) => over.some((level) => level.has(s)));
  if (seen.length === 0) return note('No server series was scraped during the levels.');
  const shown = seen.slice(0, SERIES_SHOWN);
  const rows = shown.map((s) => [
    breakable(seriesTitle(s, telemetry)),
    ...over.map((level) => {
      const o = level.get(s);
      return o ? `${formatPlain(o.mean)} · ${formatPlain(o.max)}` : '–';
    }),
  ]);
  const more = seen.length - shown.length;
  return html`<h3 class="subhead">Server series (scraped): mean · max per level</h3>
${table(['series', ...levels.map((b) => b.label)], rows, 'server-by-level')}
${more > 0 ? note(`${more} more series in report.json and server-metrics.csv.`) : ''}`;
}
