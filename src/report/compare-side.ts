import type { BenchmarkSummary, ColdWarm } from '../metrics/compute.js';
import { coldWarmOf } from './cold-warm.js';
import type { Task } from '../timeline/types.js';
import type { Benchmark, Report, Telemetry } from './schema.js';
import { seriesOverLevel, seriesTitle } from './telemetry.js';

/** One side of a comparison: what ran, on what inputs, and how it fared overall. */
export interface Side {
  /** The benchmark level compared, e.g. `synchronous`, `concurrent@8`. */
  label: string;
  startedAt: string;
  model: string;
  target: string;
  protocol: string;
  task: Task;
  turnDetection: string;
  pace: string;
  chunkMs: number;
  dataset: { data: string; count: number; fingerprint: string };
  /** The normalizers its transcripts were scored with. */
  normalizer: string;
  /** The rules its speaker labels were scored by, in words; absent without speaker figures. */
  speakerRules?: string;
  sessions: BenchmarkSummary['sessions'];
  errorRate: number | null;
  throughput: { audioSPerWallS: number; sessionsPerS: number };
  /** The server's scraped series over the level (`--scrape`): mean and max, named as the console names them. */
  server?: ServerFigures[];
  /** The level's sessions that started cold apart from warm ones, when some started cold. */
  coldWarm?: ColdWarm;
}

export interface ServerFigures {
  series: string;
  mean: number;
  max: number;
}

export function sideOf(report: Report, benchmark: Benchmark): Side {
  const { config, dataset } = report;
  const { summary } = benchmark;
  return {
    label: benchmark.label,
    startedAt: report.startedAt,
    model: config.model,
    target: config.target,
    protocol: config.protocol,
    task: config.task,
    turnDetection: config.turnDetection.type,
    pace: config.pace,
    chunkMs: config.chunkMs,
    dataset: { data: config.data, count: dataset.count, fingerprint: dataset.fingerprint },
    normalizer: summary.quality.normalizer,
    ...(summary.diarization && config.diarization ? { speakerRules: config.diarization.description } : {}),
    sessions: summary.sessions,
    errorRate: summary.errorRate,
    throughput: { audioSPerWallS: summary.throughput.audioSPerWallS, sessionsPerS: summary.throughput.sessionsPerS },
    ...(report.telemetry ? { server: serverFigures(report.telemetry, benchmark) } : {}),
    ...(coldWarmOf(benchmark) ? { coldWarm: coldWarmOf(benchmark) } : {}),
  };
}

function serverFigures(telemetry: Telemetry, benchmark: Benchmark): ServerFigures[] {
  return seriesOverLevel(telemetry, benchmark.startMs, benchmark.endMs).map((o) => ({
    series: seriesTitle(o.series, telemetry),
    mean: o.mean,
    max: o.max,
  }));
}

/**
 * What makes two runs measure different things besides the servers under test: their
 * inputs (the dataset's fingerprint), their load level, the protocol spoken, the
 * pacing of the audio, and the normalizer that scored transcripts (WER under two
 * normalizers does not compare; `--normalizer` scores both sides alike), and the rules
 * speaker labels were scored by, where both have speaker figures. Each is a warning, not an error: comparing across them can be
 * the point, but never by accident.
 */
export function mismatches(a: Side, b: Side): string[] {
  const warnings: string[] = [];
  const differ = (what: (side: Side) => string, warning: (x: string, y: string) => string): void => {
    if (what(a) !== what(b)) warnings.push(warning(what(a), what(b)));
  };
  differ(
    (s) => s.dataset.fingerprint,
    () => `different datasets: A ran ${datasetText(a)}, B ran ${datasetText(b)}; differences may come from the inputs`,
  );
  differ(
    (s) => s.label,
    (x, y) => `different levels: A ran ${x}, B ran ${y}`,
  );
  differ(
    (s) => `${s.protocol} (${s.task}, turn detection ${s.turnDetection})`,
    (x, y) => `different protocols: A spoke ${x}, B ${y}`,
  );
  differ(
    (s) => `pace ${s.pace} in ${s.chunkMs} ms chunks`,
    (x, y) => `different pacing: A sent audio at ${x}, B at ${y}`,
  );
  differ(
    (s) => s.normalizer,
    (x, y) => `different normalizers: A scored transcripts with ${x}, B with ${y}; their WER does not compare (score both alike with --normalizer)`,
  );
  if (a.speakerRules && b.speakerRules)
    differ(
      (s) => s.speakerRules ?? '',
      (x, y) => `different speaker scoring rules: A ${x}, B ${y}; their DER does not compare (score both alike with report render --der-*)`,
    );
  return warnings;
}

function datasetText(side: Side): string {
  const { data, count, fingerprint } = side.dataset;
  // The algorithm and enough of the hash to tell two datasets apart at a glance.
  const short = fingerprint.replace(/([0-9a-f]{12})[0-9a-f]+$/, '$1…');
  return `${data} (${count} sample${count === 1 ? '' : 's'}, ${short})`;
}
