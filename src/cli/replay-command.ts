import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import {
  extractShape,
  SHAPE_FORMAT,
  SHAPE_VERSION,
  shapeText,
  type RecordedFigures,
  type ShapeHeader,
  type ShapeSession,
  type SourceSession,
} from '../load/traffic-shape.js';
import { metricByName } from '../metrics/catalog.js';
import { poolMetricValues } from '../metrics/compute.js';
import type { SessionRecord } from '../timeline/types.js';
import { readHeldReport } from '../report/recompute.js';
import { readSessionLog } from '../report/session-log.js';
import type { Benchmark, HeldReport } from '../report/schema.js';
import { UsageError } from '../util/errors.js';
import { plural } from '../util/plural.js';
import { helpText } from './help.js';

const extract = new Command('extract')
  .description(
    "Write a traffic shape (JSONL) from a proxy's --output-dir, a run's folder or a report.json: each session's start, dialect, model, inputs (audio length, chunk size and cadence as sent, pauses, commits), session updates and barge-ins. No audio, and no text unless --keep-text.",
  )
  .argument('<source>', "a proxy's or a run's output folder (report.json and sessions.jsonl), or a report.json")
  .requiredOption('--output <file>', 'the shape file to write (JSONL), e.g. shape.jsonl')
  .option('--keep-text', "keep each input's transcript or prompt in the shape (only where the users allow it)")
  .addHelpText('after', helpText('', 'Play it with `voxbench run --replay <file>`; docs/replay.md describes the file and what it keeps.'))
  .action(async (source, opts) => {
    const { header, sessions: shape } = await extractShapeFrom(source, opts.keepText === true);
    const gaps = shape.filter((s) => s.gap).length;
    await writeFile(opts.output, shapeText(header, shape));
    process.stdout.write(
      `Wrote ${opts.output}: ${plural(shape.length, 'session')}${gaps > 0 ? `, ${gaps} recorded with a gap (named in the file; a replay counts them)` : ''}\n`,
    );
  });

/** The traffic shape of a proxy's or a run's output folder, or of a report.json: what `voxbench replay extract` writes. */
export async function extractShapeFrom(source: string, keepText: boolean): Promise<{ header: ShapeHeader; sessions: ShapeSession[] }> {
  const report = await readHeldReport(source);
  const sessions = await sourceSessions(report, source);
  if (sessions.length === 0) throw new UsageError(`${source} holds no sessions: nothing was recorded there to extract (did the proxy see any traffic?)`);
  const shape = extractShape(sessions, keepText);
  const origin = Math.min(...sessions.map((s) => s.record.timeline.startMs));
  const end = Math.max(...shape.map((s) => s.startMs + s.durationMs), 0);
  return {
    header: {
      format: SHAPE_FORMAT,
      version: SHAPE_VERSION,
      source: { kind: report.config.data === 'observed traffic' ? 'proxy' : 'run', file: source, startedAt: shiftedStart(report.startedAt, origin) },
      sessions: shape.length,
      spanMs: end,
      keepText,
      recorded: recordedFigures(report.benchmarks),
    },
    sessions: shape,
  };
}

export const replayCommand = new Command('replay')
  .summary('Turn recorded traffic (the proxy log, a run) into a traffic shape that `voxbench run --replay` plays.')
  .description('Record the shape of live traffic, without its audio, for `voxbench run --replay` to play against another server (docs/replay.md).')
  .addCommand(extract);

/** The report's sessions with the dialect and model each was metered with: the proxy's log says per session, a run's config once. */
async function sourceSessions(report: HeldReport, source: string): Promise<SourceSession[]> {
  const logged = source.endsWith('.json') ? await readSessionLog(dirname(source)).catch(() => []) : await readSessionLog(source);
  const byIndex = new Map(logged.map((entry) => [`${entry.level}/${entry.record.index}`, entry]));
  const single = report.config.protocol.includes('+') ? undefined : report.config.protocol;
  return report.benchmarks.flatMap((benchmark) =>
    benchmark.sessions.map((record) => {
      const entry = byIndex.get(`${benchmark.label}/${record.index}`);
      const protocol = entry?.protocol ?? single;
      const model = entry ? entry.model : report.config.model || undefined;
      return { record, ...(protocol ? { protocol } : {}), ...(model ? { model } : {}), ...figuresOf(record) };
    }),
  );
}

/** A completed session's values of each latency (ms) the catalog measures on it, for a replay to summarize over the sessions of its window. */
function figuresOf(record: SessionRecord): Pick<SourceSession, 'figures'> {
  if (record.outcome.status !== 'completed') return {};
  const values = poolMetricValues([record.timeline]);
  return { figures: Object.fromEntries(Object.entries(values).filter(([name, v]) => v.length > 0 && metricByName(name)?.unit === 'ms')) };
}

/** The wall-clock time of the first session's start. */
function shiftedStart(startedAt: string, originMs: number): string {
  const wall = Date.parse(startedAt);
  return Number.isFinite(wall) && Number.isFinite(originMs) ? new Date(wall + originMs).toISOString() : startedAt;
}

/** Each level's figures: its task's, p50 and p95 of every metric it has. */
function recordedFigures(benchmarks: Benchmark[]): Record<string, RecordedFigures> {
  return Object.fromEntries(
    benchmarks.map((b) => [
      b.sessions[0]?.figures.task ?? b.label,
      {
        sessions: b.summary.sessions.total,
        errorRate: b.summary.errorRate,
        metrics: Object.fromEntries(
          Object.entries(b.summary.metrics)
            .filter((entry): entry is [string, NonNullable<(typeof entry)[1]>] => entry[1] !== null)
            .map(([name, d]) => [name, { p50: d.p50, p95: d.p95, count: d.count }]),
        ),
      },
    ]),
  );
}
