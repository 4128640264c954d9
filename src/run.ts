import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import type { ProtocolAdapter } from './adapters/adapter.js';
import { createAdapter } from './adapters/index.js';
import { monotonicClock } from './clock.js';
import { resolveSettings, type RunOptions, type Settings } from './config.js';
import { BUNDLED_SAMPLES_DIR } from './data/bundled.js';
import { summarizeDataset, type Dataset } from './data/dataset.js';
import { loadFolderDataset } from './data/folder.js';
import { execute } from './load/execute.js';
import { profileLabel } from './load/profiles.js';
import { describeMetrics } from './metrics/catalog.js';
import { computeSessionMetrics, summarizeBenchmark } from './metrics/compute.js';
import { PERCENTILE_METHOD } from './metrics/stats.js';
import { REDACTED, redactUrl } from './report/redact.js';
import { REPORT_SCHEMA, REPORT_VERSION, type Report, type RunConfig } from './report/schema.js';
import { startServer, type RunningServer } from './server/server.js';
import { formatPace } from './session/pace.js';
import { prepareSample, type PreparedSample, type PreparedTurn } from './session/prepare.js';
import { runSession } from './session/run-session.js';
import { VERSION } from './version.js';

export { UsageError, type RunOptions } from './config.js';

export interface RunResult {
  report: Report;
  /** Path of the written `report.json`, when `outputDir` was given. */
  reportPath?: string;
}

/**
 * Runs a benchmark: loads and prepares the audio, starts the built-in server when
 * there is no target, runs the sessions under the load profile and builds the report.
 */
export async function run(options: RunOptions = {}): Promise<RunResult> {
  const settings = resolveSettings(options);
  const dataset = await loadFolderDataset(options.data ?? BUNDLED_SAMPLES_DIR);
  const server =
    options.target === undefined
      ? await startServer({ port: 0, models: [settings.model], references: dataset.samples, ...options.server })
      : undefined;
  try {
    const target = options.target ?? server!.url;
    const adapter = createAdapter(settings.protocol, {
      model: settings.model,
      turnDetection: settings.turnDetection,
      ...(options.language !== undefined ? { language: options.language } : {}),
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    });
    const prepared = await prepareAudio(dataset, adapter, settings);
    const maxSessions = options.maxSessions ?? Math.max(Math.ceil(dataset.samples.length / settings.turnsPerSession), settings.lanes);
    const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
    const socketOptions = {
      ...(options.tls?.ca !== undefined ? { ca: options.tls.ca } : {}),
      ...(options.tls?.insecure ? { rejectUnauthorized: false } : {}),
    };
    /** Session i streams samples i*T .. i*T+T-1 (round robin over the dataset). */
    const turnsOf = (index: number): PreparedTurn[] =>
      Array.from({ length: settings.turnsPerSession }, (_, k) => {
        const sample = dataset.samples[(index * settings.turnsPerSession + k) % dataset.samples.length]!;
        const { first, later } = prepared.get(sample.id)!;
        return k === 0 ? first : later;
      });

    // Everything above happens before the clock starts.
    let done = 0;
    const clock = monotonicClock();
    const execution = await execute({
      profile: settings.profile,
      maxSessions,
      ...(options.maxSeconds !== undefined ? { maxSeconds: options.maxSeconds } : {}),
      clock,
      ...(options.signal ? { signal: options.signal } : {}),
      runSession: async (index, plannedStartMs, signal) => {
        const { timeline, outcome } = await runSession({
          url: target,
          headers,
          adapter,
          turns: turnsOf(index),
          pace: settings.pace,
          idleMs: settings.idleMs,
          ...(options.updateAtMs !== undefined ? { updateAtMs: options.updateAtMs } : {}),
          timeouts: settings.timeouts,
          clock,
          signal,
          socketOptions,
        });
        return { index, plannedStartMs, timeline, outcome };
      },
      onSessionEnd: (record) => options.onSessionEnd?.(record, ++done, maxSessions),
    });

    const config: RunConfig = {
      target: redactUrl(target),
      builtInServer: server !== undefined,
      protocol: adapter.name,
      model: settings.model,
      language: options.language ?? null,
      prompt: options.prompt ?? null,
      turnDetection: settings.turnDetection,
      data: options.data ?? 'bundled samples',
      profile: settings.profile,
      maxSessions,
      maxSeconds: options.maxSeconds ?? null,
      turnsPerSession: settings.turnsPerSession,
      padding: settings.padding,
      idleMs: settings.idleMs,
      updateAtMs: options.updateAtMs ?? null,
      eos: settings.eos,
      chunkMs: settings.chunkMs,
      pace: formatPace(settings.pace),
      timeouts: settings.timeouts,
      apiKey: options.apiKey ? REDACTED : null,
      tls: { ca: options.tls?.ca !== undefined, insecure: options.tls?.insecure === true },
    };
    const report: Report = {
      schema: REPORT_SCHEMA,
      version: REPORT_VERSION,
      voxbenchVersion: VERSION,
      startedAt: clock.wallStart.toISOString(),
      ...(execution.stoppedBy ? { stoppedBy: execution.stoppedBy } : {}),
      environment: { node: process.version, platform: process.platform, arch: process.arch, cpus: cpus().length, hostname: hostname() },
      config,
      dataset: { ...summarizeDataset(dataset), problems: dataset.problems },
      metricDefinitions: describeMetrics(),
      percentileMethod: PERCENTILE_METHOD,
      benchmarks: [
        {
          label: profileLabel(settings.profile),
          profile: settings.profile,
          startMs: execution.startMs,
          endMs: execution.endMs,
          clientHealth: { eventLoopDelay: execution.eventLoopDelay },
          summary: summarizeBenchmark(execution.records, execution.endMs - execution.startMs),
          sessions: execution.records.map((r) => ({ ...r, metrics: computeSessionMetrics(r.timeline) })),
        },
      ],
    };
    if (options.outputDir === undefined) return { report };
    return { report, reportPath: await writeReport(report, options.outputDir) };
  } finally {
    await server?.close();
  }
}

export async function writeReport(report: Report, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'report.json');
  await writeFile(path, JSON.stringify(report, null, 1) + '\n');
  return path;
}

/** Decodes, resamples, pads, chunks and encodes every sample once, before the clock starts. */
async function prepareAudio(dataset: Dataset, adapter: ProtocolAdapter, settings: Settings): Promise<Map<string, PreparedSample>> {
  const prepared = new Map<string, PreparedSample>();
  for (const sample of dataset.samples) {
    prepared.set(sample.id, await prepareSample(sample, adapter, settings.chunkMs, settings.padding, settings.eos));
  }
  return prepared;
}
