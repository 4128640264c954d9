import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { monotonicClock } from './clock.js';
import { profileAt, resolveSettings, type RunOptions } from './config.js';
import { summarizeDataset } from './data/dataset.js';
import { searchCapacity } from './load/capacity.js';
import { profileLabel, type LoadProfile } from './load/profiles.js';
import { WorkerPool } from './load/workers.js';
import { describeMetrics } from './metrics/catalog.js';
import { computeSessionMetrics, summarizeBenchmark } from './metrics/compute.js';
import { judgeClient } from './metrics/health.js';
import { phases } from './metrics/window.js';
import { PERCENTILE_METHOD } from './metrics/stats.js';
import { REDACTED, redactUrl } from './report/redact.js';
import { REPORT_SCHEMA, REPORT_VERSION, type Benchmark, type Report, type RunConfig } from './report/schema.js';
import { createRunContext, loadRunDataset, runLevel } from './run-context.js';
import { startServer } from './server/server.js';
import { formatPace } from './session/pace.js';
import { DEFAULT_ACK_WINDOW_MS } from './session/run-session.js';
import type { SessionRecord } from './timeline/types.js';
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
  const dataset = await loadRunDataset(options);
  const server =
    options.target === undefined
      ? await startServer({ port: 0, models: [settings.model], references: dataset.samples, ...options.server })
      : undefined;
  let pool: WorkerPool | undefined;
  try {
    const target = options.target ?? server!.url;
    const context = await createRunContext(options, settings, dataset);

    // Everything above happens before the clock starts.
    const clock = monotonicClock();
    if (settings.workers > 1) pool = await WorkerPool.start(settings.workers, options, target, clock);
    const benchmarks: Benchmark[] = [];
    const runBenchmark = async (profile: LoadProfile): Promise<Benchmark> => {
      let done = 0;
      const maxSessions = context.sessionsFor(profile);
      const onSessionEnd = (record: SessionRecord): void => options.onSessionEnd?.(record, ++done, maxSessions);
      const execution = pool
        ? await pool.runLevel(profile, maxSessions, options.signal, onSessionEnd)
        : await runLevel(context, options, settings, target, { profile, maxSessions, clock, ...(options.signal ? { signal: options.signal } : {}), onSessionEnd });
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
      protocol: context.adapter.name,
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
      workers: settings.workers,
      ackWindowMs: options.ackWindowMs ?? DEFAULT_ACK_WINDOW_MS,
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
    await pool?.close();
    await server?.close();
  }
}

export async function writeReport(report: Report, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'report.json');
  await writeFile(path, JSON.stringify(report, null, 1) + '\n');
  return path;
}
