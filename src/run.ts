import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import type { ProtocolAdapter } from './adapters/adapter.js';
import { createAdapter } from './adapters/index.js';
import { monotonicClock } from './clock.js';
import { profileAt, resolveSettings, type RunOptions, type Settings } from './config.js';
import { BUNDLED_SAMPLES_DIR } from './data/bundled.js';
import { summarizeDataset, type Dataset } from './data/dataset.js';
import { loadFolderDataset } from './data/folder.js';
import { searchCapacity } from './load/capacity.js';
import { execute } from './load/execute.js';
import { isOpenLoop, lanes, profileLabel, type LoadProfile } from './load/profiles.js';
import { describeMetrics } from './metrics/catalog.js';
import { computeSessionMetrics, summarizeBenchmark } from './metrics/compute.js';
import { judgeClient } from './metrics/health.js';
import { phases } from './metrics/window.js';
import { PERCENTILE_METHOD } from './metrics/stats.js';
import { REDACTED, redactUrl } from './report/redact.js';
import { REPORT_SCHEMA, REPORT_VERSION, type Benchmark, type Report, type RunConfig } from './report/schema.js';
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
 * there is no target, runs one benchmark per load level (one, a sweep, or as many as
 * a capacity search needs) and builds the report.
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
    /** Enough sessions to stream every sample once, and at least one per lane (or ten arrivals). */
    const sessionsFor = (profile: LoadProfile): number =>
      options.maxSessions ?? Math.max(Math.ceil(dataset.samples.length / settings.turnsPerSession), isOpenLoop(profile) ? 10 : lanes(profile));

    // Everything above happens before the clock starts.
    const clock = monotonicClock();
    const benchmarks: Benchmark[] = [];
    const runBenchmark = async (profile: LoadProfile): Promise<Benchmark> => {
      let done = 0;
      const maxSessions = sessionsFor(profile);
      const execution = await execute({
        profile,
        maxSessions,
        ...(options.maxSeconds !== undefined ? { maxSeconds: options.maxSeconds } : {}),
        ...(options.rampUpMs !== undefined ? { rampUpMs: options.rampUpMs } : {}),
        ...(options.stopOnErrorRate ? { stopOnErrorRate: options.stopOnErrorRate } : {}),
        clock,
        ...(options.signal ? { signal: options.signal } : {}),
        runSession: async (index, plannedStartMs, signal) => {
          const { timeline, outcome } = await runSession({
            url: target,
            headers,
            adapter,
            turns: turnsOf(index),
            pace: settings.pace,
            plannedStartMs,
            idleMs: settings.idleMs,
            ...(options.updateAtMs !== undefined ? { updateAtMs: options.updateAtMs } : {}),
            timeouts: settings.timeouts,
            clock,
            signal,
            socketOptions,
          });
          return { index, timeline, outcome };
        },
        onSessionEnd: (record) => options.onSessionEnd?.(record, ++done, maxSessions),
      });
      const sessionPhases = phases(execution.records, execution.startMs, execution.endMs, options.window ?? {});
      const summary = summarizeBenchmark(execution.records, sessionPhases, settings.slos);
      const benchmark: Benchmark = {
        label: profileLabel(profile),
        profile,
        startMs: execution.startMs,
        endMs: execution.endMs,
        ...(execution.stoppedBy ? { stoppedBy: execution.stoppedBy } : {}),
        clientHealth: judgeClient(summary, execution.eventLoopDelay, execution.capHits),
        summary,
        sessions: execution.records.map((r, i) => ({ ...r, phase: sessionPhases[i]!, metrics: computeSessionMetrics(r.timeline) })),
      };
      benchmarks.push(benchmark);
      return benchmark;
    };

    const { plan } = settings;
    let capacity: Report['capacity'];
    if (plan.kind === 'single') await runBenchmark(plan.profile);
    else if (plan.kind === 'sweep') {
      for (const level of plan.levels) {
        if (options.signal?.aborted) break;
        await runBenchmark(profileAt(plan, level));
      }
    } else {
      const result = await searchCapacity(plan.search, async (level) => {
        if (options.signal?.aborted) return false;
        const { summary } = await runBenchmark(profileAt(plan, level));
        return summary.slos.every((slo) => slo.pass);
      });
      capacity = { by: plan.by, slos: settings.slos.map((slo) => slo.text), ...result };
    }

    const config: RunConfig = {
      target: redactUrl(target),
      builtInServer: server !== undefined,
      protocol: adapter.name,
      model: settings.model,
      language: options.language ?? null,
      prompt: options.prompt ?? null,
      turnDetection: settings.turnDetection,
      data: options.data ?? 'bundled samples',
      plan,
      maxSessions: options.maxSessions ?? null,
      maxSeconds: options.maxSeconds ?? null,
      rampUpMs: options.rampUpMs ?? 0,
      window: options.window ?? {},
      stopOnErrorRate: options.stopOnErrorRate ?? null,
      slos: settings.slos.map((slo) => slo.text),
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
      ...(options.signal?.aborted ? { stoppedBy: 'interrupted' as const } : {}),
      environment: { node: process.version, platform: process.platform, arch: process.arch, cpus: cpus().length, hostname: hostname() },
      config,
      dataset: { ...summarizeDataset(dataset), problems: dataset.problems },
      metricDefinitions: describeMetrics(),
      percentileMethod: PERCENTILE_METHOD,
      benchmarks,
      ...(capacity ? { capacity } : {}),
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
