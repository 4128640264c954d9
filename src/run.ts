import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import type { ProtocolAdapter } from './adapters/adapter.js';
import { vllmAdapter } from './adapters/vllm.js';
import { toPcm16 } from './audio/pcm.js';
import { resample } from './audio/resample.js';
import { monotonicClock } from './clock.js';
import { BUNDLED_SAMPLES_DIR } from './data/bundled.js';
import { summarizeDataset, type Dataset } from './data/dataset.js';
import { loadFolderDataset } from './data/folder.js';
import { execute } from './load/execute.js';
import { profileLabel, type LoadProfile } from './load/profiles.js';
import { describeMetrics } from './metrics/catalog.js';
import { computeSessionMetrics, summarizeBenchmark } from './metrics/compute.js';
import { PERCENTILE_METHOD } from './metrics/stats.js';
import { REDACTED, redactUrl } from './report/redact.js';
import { REPORT_SCHEMA, REPORT_VERSION, type Report, type RunConfig } from './report/schema.js';
import { DEFAULT_MODEL, startServer, type RunningServer, type ServerOptions } from './server/server.js';
import { formatPace, parsePace, type Pace } from './session/pace.js';
import { prepareTurn, type PreparedTurn } from './session/prepare.js';
import { DEFAULT_TIMEOUTS, runSession, type StageTimeouts } from './session/run-session.js';
import type { SessionRecord } from './timeline/types.js';
import { VERSION } from './version.js';

export const PROTOCOLS = ['vllm'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export interface RunOptions {
  /** WebSocket URL of the server; omitted, the built-in simulated server is started on loopback. */
  target?: string;
  protocol?: Protocol;
  /** Model named in `session.update`; required with `target`. */
  model?: string;
  /** Folder of WAV files with same-named `.txt` transcripts; default the bundled samples. */
  data?: string;
  profile?: LoadProfile;
  /** Sessions to run; default one per sample (at least one per lane). */
  maxSessions?: number;
  maxSeconds?: number;
  /** Audio per chunk, ms. Default 100. */
  chunkMs?: number;
  /** `realtime` (default), `Nx` or `none`. */
  pace?: Pace;
  timeouts?: Partial<StageTimeouts>;
  /** Sent as `Authorization: Bearer`; never written to reports. */
  apiKey?: string;
  /** Where `report.json` goes; omitted, nothing is written. */
  outputDir?: string;
  /** Settings of the built-in server, when there is no `target`. */
  server?: Partial<ServerOptions>;
  /** Aborting stops the run; what finished is kept and the report is marked. */
  signal?: AbortSignal;
  onSessionEnd?(record: SessionRecord, done: number, expected: number): void;
}

export interface RunResult {
  report: Report;
  /** Path of the written `report.json`, when `outputDir` was given. */
  reportPath?: string;
}

/** Invalid options or input; the message says which and what to do. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Runs a benchmark: loads and prepares the audio, starts the built-in server when
 * there is no target, runs the sessions under the load profile and builds the report.
 */
export async function run(options: RunOptions = {}): Promise<RunResult> {
  const settings = resolveSettings(options);
  const dataset = await loadFolderDataset(options.data ?? BUNDLED_SAMPLES_DIR);
  const server = options.target === undefined ? await startBuiltInServer(dataset, settings.model, options.server) : undefined;
  try {
    const target = options.target ?? server!.url;
    const adapter = vllmAdapter({ model: settings.model });
    const turns = await prepareAudio(dataset, adapter, settings.chunkMs);
    const maxSessions = options.maxSessions ?? Math.max(dataset.samples.length, settings.lanes);
    const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};

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
        const sample = dataset.samples[index % dataset.samples.length]!;
        const { timeline, outcome } = await runSession({
          url: target,
          headers,
          adapter,
          turns: [turns.get(sample.id)!],
          pace: settings.pace,
          timeouts: settings.timeouts,
          clock,
          signal,
        });
        return { index, sampleId: sample.id, split: sample.split, plannedStartMs, timeline, outcome };
      },
      onSessionEnd: (record) => options.onSessionEnd?.(record, ++done, maxSessions),
    });

    const config: RunConfig = {
      target: redactUrl(target),
      builtInServer: server !== undefined,
      protocol: adapter.name,
      model: settings.model,
      data: options.data ?? 'bundled samples',
      profile: settings.profile,
      maxSessions,
      maxSeconds: options.maxSeconds ?? null,
      chunkMs: settings.chunkMs,
      pace: formatPace(settings.pace),
      timeouts: settings.timeouts,
      apiKey: options.apiKey ? REDACTED : null,
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

interface Settings {
  model: string;
  profile: LoadProfile;
  lanes: number;
  chunkMs: number;
  pace: Pace;
  timeouts: StageTimeouts;
}

function resolveSettings(options: RunOptions): Settings {
  if (options.target !== undefined) {
    let url: URL;
    try {
      url = new URL(options.target);
    } catch {
      throw new UsageError(`--target ${JSON.stringify(options.target)} is not a URL; give one like ws://localhost:8000/v1/realtime`);
    }
    if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
      throw new UsageError(`--target must be a ws:// or wss:// URL, got ${url.protocol}//`);
    }
    if (options.model === undefined) throw new UsageError('--model is required with --target: name the model the server serves');
  }
  if (options.protocol !== undefined && !PROTOCOLS.includes(options.protocol)) {
    throw new UsageError(`--protocol ${options.protocol} is not supported; choose one of: ${PROTOCOLS.join(', ')}`);
  }
  const profile = options.profile ?? { kind: 'synchronous' };
  const lanes = profile.kind === 'concurrent' ? profile.concurrency : 1;
  positive('--concurrency', lanes, true);
  const chunkMs = options.chunkMs ?? 100;
  positive('--chunk-ms', chunkMs, false);
  if (options.maxSessions !== undefined) positive('--max-sessions', options.maxSessions, true);
  if (options.maxSeconds !== undefined) positive('--max-seconds', options.maxSeconds, false);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  positive('--connect-timeout-ms', timeouts.connectMs, false);
  positive('--ready-timeout-ms', timeouts.readyMs, false);
  positive('--final-timeout-ms', timeouts.finalMs, false);
  return { model: options.model ?? DEFAULT_MODEL, profile, lanes, chunkMs, pace: options.pace ?? parsePace('realtime')!, timeouts };
}

function positive(flag: string, value: number, integer: boolean): void {
  if (!(value > 0) || (integer && !Number.isInteger(value))) {
    throw new UsageError(`${flag} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`);
  }
}

async function startBuiltInServer(dataset: Dataset, model: string, overrides: Partial<ServerOptions> = {}): Promise<RunningServer> {
  return startServer({ port: 0, models: [model], references: dataset.samples, ...overrides });
}

/** Decodes, resamples, chunks and encodes every sample once, before the clock starts. */
async function prepareAudio(dataset: Dataset, adapter: ProtocolAdapter, chunkMs: number): Promise<Map<string, PreparedTurn>> {
  const turns = new Map<string, PreparedTurn>();
  for (const sample of dataset.samples) {
    const audio = await resample(sample.audio, adapter.sampleRate);
    turns.set(sample.id, prepareTurn(toPcm16(audio.samples), adapter.sampleRate, chunkMs, adapter));
  }
  return turns;
}
