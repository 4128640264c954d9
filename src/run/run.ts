import { diarizationRecord } from '../metrics/diarization/rules.js';
import { randomUUID } from 'node:crypto';
import { access } from 'node:fs/promises';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { monotonicClock, type Clock } from '../runtime/clock.js';
import type { RunOptions } from '../config/options.js';
import { resolveSettings, type Settings } from '../config/settings.js';
import { option, optionsError } from '../config/errors.js';
import { summarizeDataset, type Sample } from '../data/dataset.js';
import { lockFolder } from '../util/folder-lock.js';
import { searchCapacity } from '../load/capacity.js';
import { profileAt } from '../load/plan.js';
import { profileLabel, type LoadProfile } from '../load/profiles.js';
import { shareOf, type Share } from '../load/shards.js';
import { WorkerPool } from './workers.js';
import { describeMetrics } from '../metrics/catalog.js';
import { clientLagMs, lagExplains } from '../metrics/health.js';
import { PERCENTILE_METHOD } from '../metrics/stats.js';
import { buildHeldBenchmark } from '../report/build.js';
import { lastEndMs } from '../metrics/cold-start.js';
import { writeOutputs } from '../report/outputs.js';
import { upgradeRecord } from '../report/migrate.js';
import { buildRecord } from '../report/record.js';
import { REDACTED, redactUrl } from '../report/redact.js';
import { readReportHeader } from '../report/report-header.js';
import { REPORT_SCHEMA, REPORT_VERSION, type Benchmark, type HeldReport, type HeldSession, type Report, type RunConfig } from '../report/schema.js';
import { onClockOf, resumeSessionLog, SESSION_LOG, SessionLog, SessionLogError, type LoggedSession } from '../report/session-log.js';
import { checkResumable } from './resume-check.js';
import { replayOf, type RunReplay } from './replay-plan.js';
import { scrapeUrlOf } from '../config/scrape-rules.js';
import type { Scraping } from '../scrape/scraper.js';
import { levelSettings } from '../report/telemetry.js';
import { builtInWebSocketTarget, createRunContext, loadRunDataset, runLevel, type RunContext, type RunDataset } from './run-context.js';
import { startServerThread } from '../simulator/thread.js';
import { NO_DELAY } from '../runtime/delay.js';
import { startStampProbe, type StampProbe } from '../runtime/stamp-probe.js';
import { analyseSpeech } from './speech-quality.js';
import { formatPace } from '../session/pace.js';
import { DEFAULT_SESSION_CAPS } from '../session/session-caps.js';
import type { SessionRecord } from '../timeline/types.js';
import { VERSION } from '../util/version.js';

export { UsageError } from '../util/errors.js';
export type { RunOptions } from '../config/options.js';

export interface RunResult {
  report: HeldReport;
  /** Path of the written `report.json`, when `outputDir` (or `resume`) was given. */
  reportPath?: string;
  /** Every file the run wrote: the report, the other outputs and the session log. */
  written: string[];
}

/**
 * Runs a benchmark: loads and prepares the audio, starts the built-in server when
 * there is no target, runs one benchmark per load level (one, a sweep, or as many as
 * a capacity search needs) and builds the report. With an output folder, every
 * session is logged as it ends, so nothing measured is lost to a crash.
 */
export async function run(options: RunOptions = {}): Promise<RunResult> {
  const resolved = resolveSettings(options);
  const dataset = await loadRunDataset(options);
  // A replay is planned on the corpus: which recorded sessions it can fill, and with what.
  const replay = options.replay ? replayOf(options, resolved, dataset) : undefined;
  const settings: Settings = replay ? { ...resolved, plan: { kind: 'replay', levels: replay.levels } } : resolved;
  const outputDir = options.outputDir ?? options.resume;
  if (options.resume !== undefined) await checkResumeLog(options.resume);
  if (outputDir === undefined) return runIn(undefined, options, settings, dataset, replay);
  const release = await lockFolder(outputDir);
  try {
    return await runIn(outputDir, options, settings, dataset, replay);
  } finally {
    await release();
  }
}

/** The options with a Hub dataset pinned to the commit this run read, so every worker thread reads the same bytes. */
function atCommit(options: RunOptions, dataset: RunDataset): RunOptions {
  const { hub } = dataset;
  if (!hub) return options;
  return { ...options, data: `hf:${hub.id}`, dataset: { ...options.dataset, hub: { ...options.dataset?.hub, config: hub.config, revision: hub.commit } } };
}

/** The run, with its output folder (if any) held by this run alone. */
async function runIn(outputDir: string | undefined, options: RunOptions, settings: Settings, dataset: RunDataset, replay?: RunReplay): Promise<RunResult> {
  const resumed = options.resume ? finishedSessions(await resumeSessionLog(options.resume)) : new Map<string, Map<number, LoggedSession>>();
  // Opened before the server starts, so a folder that cannot be written leaves nothing running.
  const log = outputDir === undefined ? undefined : await SessionLog.open(outputDir, options.resume !== undefined);
  // Generated speech's round trip transcribes on the built-in server too, when it runs as the run starts it and no
  // scrape would count the check's sessions as the benchmark's: a thread of the check's own costs a start.
  const transcribesToo =
    options.target === undefined && options.server === undefined && settings.speaks && settings.quality.asr.target === undefined && !settings.scrape;
  const server =
    options.target === undefined
      ? await startServerThread({
          port: 0,
          models: transcribesToo ? [settings.model, settings.quality.asr.model] : [settings.model],
          references: dataset.samples.filter((s): s is Sample => s.kind !== 'text'),
          ...options.server,
        }).catch(async (err: unknown) => {
          await log?.close();
          throw err;
        })
      : undefined;
  let pool: WorkerPool | undefined;
  let opened: RunContext | undefined;
  let written: string | undefined;
  let scraping: Scraping | undefined;
  let probe: StampProbe | undefined;
  try {
    const context = (opened = await createRunContext(settings, dataset, replay?.sessions));
    // The built-in server serves WebSocket and HTTP dialects on one port; a dialect that opens its session over HTTP (an audio channel) is given the origin.
    const origin = context.dialect.transport === 'http' || context.dialect.audioChannel !== undefined;
    const target = options.target ?? (origin ? server!.origin : builtInWebSocketTarget(settings, server!.url));
    const resumedHeader = options.resume === undefined ? undefined : await readReportHeader(join(options.resume, 'report.json'));
    // A resumed run stays the run it continues (which has no id if an older voxbench ran it).
    const runId = options.runId ?? (resumedHeader?.config ? resumedHeader.config.runId : randomUUID());
    const config = { ...runConfig(options, settings, context, target, server !== undefined, runId), ...(replay ? { replay: replay.config } : {}) };
    const datasetSummary = summarizeDataset(dataset);
    if (options.resume !== undefined) checkResumable(options.resume, resumedHeader, config, datasetSummary.fingerprint);
    const header = (clock: Clock, benchmarks: Array<Benchmark<HeldSession>>, capacity?: Report['capacity']): Omit<HeldReport, 'record'> => ({
      schema: REPORT_SCHEMA,
      version: REPORT_VERSION,
      voxbenchVersion: VERSION,
      startedAt: clock.wallStart.toISOString(),
      ...(options.signal?.aborted ? { stoppedBy: 'interrupted' as const } : {}),
      environment: { node: process.version, platform: process.platform, arch: process.arch, cpus: cpus().length, hostname: hostname() },
      config,
      dataset: { ...datasetSummary, problems: dataset.problems },
      metricDefinitions: describeMetrics(),
      percentileMethod: PERCENTILE_METHOD,
      benchmarks,
      ...(capacity ? { capacity } : {}),
    });
    const replicasSeries = settings.scrape?.replicasSeries !== undefined ? { replicasSeries: settings.scrape.replicasSeries } : {};
    const finish = (partial: Omit<HeldReport, 'record'>): HeldReport => ({ ...partial, record: buildRecord(partial, config.meta) });

    // The thread's receive-stamp probe starts once, before any level (a worker thread starts its own).
    if (settings.workers <= 1) probe = await startStampProbe();
    // Loaded only with --scrape, and before the clock starts.
    const scraper = settings.scrape ? await import('../scrape/scraper.js') : undefined;
    options.onRunStart?.(config);
    // Everything above happens before the clock starts.
    const clock = monotonicClock();
    // A report of nothing yet, marked interrupted: what a crash leaves beside the session log (the document alone: there is nothing to show).
    if (outputDir !== undefined) await writeOutputs(finish({ ...header(clock, []), stoppedBy: 'interrupted' }), outputDir, ['json']);
    if (settings.scrape && scraper) {
      const { urls, ...scrape } = settings.scrape;
      const told = options.onScrapeFailure ? { onFailure: (url: string, error: string) => options.onScrapeFailure?.(url, error) } : {};
      scraping = scraper.startScraping({ ...scrape, urls: urls.map((url) => scrapeUrlOf(url, target)), ...told }, clock);
    }
    if (settings.workers > 1) pool = await WorkerPool.start(settings.workers, atCommit(options, dataset), target, clock);
    const benchmarks: Array<Benchmark<HeldSession>> = [];
    const { plan } = settings;
    const levelCount = plan.kind === 'sweep' || plan.kind === 'replay' ? plan.levels.length : plan.kind === 'single' ? 1 : undefined;
    const runBenchmark = async (profile: LoadProfile): Promise<Benchmark> => {
      const label = profileLabel(profile);
      const startedAt = clock.wallStart.toISOString();
      const kept = new Map([...(resumed.get(label) ?? [])].map(([index, entry]) => [index, onClockOf(entry, startedAt)]));
      let done = kept.size;
      const maxSessions = context.sessionsFor(profile);
      // A shard runs its share of the level (see shards.ts), and reports it as the level it belongs to.
      const share: Share = settings.shard ? shareOf(profile, settings.shard.index, settings.shard.count) : { profile, owns: () => true };
      const expected =
        settings.shard && Number.isFinite(maxSessions) ? Array.from({ length: maxSessions }, (_, i) => i).filter(share.owns).length : maxSessions;
      options.onLevelStart?.({
        label,
        number: benchmarks.length + 1,
        ...(levelCount !== undefined ? { of: levelCount } : {}),
        expected,
        kept: kept.size,
        ...(settings.duration !== undefined ? { durationMs: settings.duration * 1000 } : {}),
      });
      const onSessionStart = (): void => options.onSessionStart?.(label);
      const onSessionEnd = (record: SessionRecord): void => {
        log?.append({ level: label, profile, startedAt, record });
        options.onSessionEnd?.(record, ++done, expected, label);
      };
      const execution = pool
        ? await pool.runLevel(profile, maxSessions, [...kept.keys()], options.signal, onSessionStart, onSessionEnd)
        : share.profile === null
          ? { records: [], startMs: clock.now(), endMs: clock.now(), capHits: 0, eventLoopDelay: NO_DELAY, receiveDelay: NO_DELAY }
          : await runLevel(context, settings, target, {
              profile: share.profile,
              maxSessions,
              clock,
              ...(options.signal ? { signal: options.signal } : {}),
              ...(kept.size > 0 || settings.shard ? { shard: (index: number) => share.owns(index) && !kept.has(index) } : {}),
              ...(share.lanes ? { lanes: share.lanes } : {}),
              onSessionStart,
              onSessionEnd,
              ...(probe ? { probe } : {}),
            });
      // Generated speech is checked once the level's sessions have all ended (its audio is kept in this thread only).
      if (!pool) await analyseSpeech(execution.records, context.takeAudio, settings.quality, transcribesToo ? server : undefined);
      const earlier = lastEndMs(benchmarks.flatMap((b) => b.sessions));
      const benchmark = buildHeldBenchmark(
        { ...execution, profile, records: [...kept.values(), ...execution.records] },
        levelSettings(config, scraping && { series: scraping.series(), ...replicasSeries }, execution),
        earlier,
      );
      benchmarks.push(benchmark);
      return benchmark;
    };

    let capacity: Report['capacity'];
    // A level that found the target unreachable ends the run: every later level would too.
    const stopped = (): boolean => options.signal?.aborted === true || benchmarks.some((b) => b.stoppedBy === 'unreachable');
    if (plan.kind === 'single') await runBenchmark(plan.profile);
    else if (plan.kind === 'replay') {
      for (const profile of plan.levels) {
        if (stopped()) break;
        await runBenchmark(profile);
      }
    } else if (plan.kind === 'sweep') {
      for (const level of plan.levels) {
        if (stopped()) break;
        await runBenchmark(profileAt(plan, level));
      }
    } else {
      const result = await searchCapacity(plan.search, async (level) => {
        if (stopped()) return false;
        const { summary, clientHealth } = await runBenchmark(profileAt(plan, level));
        if (summary.slos.every((slo) => slo.pass)) return 'pass';
        // SLOs missed by no more than the client's own lag, while it lagged, judge the client, not the server.
        const lag = clientLagMs(summary, clientHealth);
        const explained = summary.slos.every((result, i) => result.pass || lagExplains(settings.slos[i]!, result.value, lag));
        return clientHealth.bottleneck && explained ? 'client' : 'fail';
      });
      capacity = { by: plan.by, slos: config.slos, ...result };
    }

    const telemetry = scraping && { ...scraping.stop(), ...replicasSeries };
    const report = finish({ ...header(clock, benchmarks, capacity), ...(telemetry ? { telemetry } : {}) });
    if (outputDir === undefined) return { report, written: [] };
    const files = await writeOutputs(report, outputDir, options.outputs);
    written = files[0];
    return { report, reportPath: files[0]!, written: [...files, join(outputDir, SESSION_LOG)] };
  } finally {
    scraping?.stop();
    const logClosed = log?.close().catch((err: Error) => err);
    await pool?.close();
    await probe?.stop();
    opened?.close();
    await server?.close();
    const failure = await logClosed;
    // The report holds every session whether or not the log could be written; say which is the case.
    /* eslint-disable no-unsafe-finally -- a log that could not be written is the run's failure, over any other: its sessions may be lost */
    if (failure instanceof SessionLogError)
      throw new SessionLogError(`${failure.message}; ${written ? `${written} holds every session that finished` : 'the run did not finish'}`);
    if (failure) throw failure;
    /* eslint-enable no-unsafe-finally */
  }
}

/** The run's settings as used, secrets redacted: the report's `config`. */
function runConfig(options: RunOptions, settings: Settings, context: RunContext, target: string, builtInServer: boolean, runId: string | undefined): RunConfig {
  return {
    target: redactUrl(target),
    builtInServer,
    task: context.dialect.task,
    protocol: context.dialect.name,
    model: settings.model,
    language: options.language ?? null,
    prompt: options.prompt ?? null,
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    turnDetection: settings.turnDetection,
    data: options.data ?? 'bundled samples',
    plan: settings.plan,
    maxSessions: options.maxSessions ?? null,
    maxSeconds: options.maxSeconds ?? null,
    duration: options.duration ?? null,
    rampUpMs: settings.rampUpMs,
    window: options.window ?? {},
    stopOnErrorRate: options.stopOnErrorRate ?? null,
    ...(options.maxErrors !== undefined ? { maxErrors: options.maxErrors } : {}),
    slos: settings.slos.map((slo) => slo.text),
    normalizer: settings.normalizer,
    diarization: diarizationRecord(settings.diarizationRules),
    pricing: options.pricing ?? null,
    meta: options.meta ?? {},
    ...(options.configFile ? { configFile: options.configFile } : {}),
    turnsPerSession: settings.turnsPerSession,
    padding: settings.padding,
    idleMs: settings.idleMs,
    updateAtMs: options.updateAtMs ?? null,
    eos: settings.eos,
    chunkMs: settings.chunkMs,
    pace: formatPace(settings.pace),
    workers: settings.workers,
    ackWindowMs: settings.ackWindowMs,
    maskFrames: settings.maskFrames,
    ...(settings.waitForAnswer ? { waitForAnswer: true } : {}),
    ...(settings.bargeInAtMs !== undefined ? { bargeInAtMs: settings.bargeInAtMs } : {}),
    ...(settings.waitForAnswer || settings.bargeInAtMs !== undefined ? { waitAudio: settings.waitAudio } : {}),
    timeouts: settings.timeouts,
    ...(settings.caps.maxEvents !== DEFAULT_SESSION_CAPS.maxEvents || settings.caps.maxBytes !== DEFAULT_SESSION_CAPS.maxBytes ? { caps: settings.caps } : {}),
    apiKey: options.apiKey ? REDACTED : null,
    tls: { ca: options.tls?.ca !== undefined, insecure: options.tls?.insecure === true },
    ...(settings.dialect.transcription
      ? {
          transcription: {
            ...settings.dialect.transcription,
            temperature: settings.dialect.transcription.temperature ?? null,
            upload: settings.uploadFormat ?? 'dataset',
          },
        }
      : {}),
    ...(runId !== undefined ? { runId } : {}),
    ...(settings.shard ? { shard: settings.shard } : {}),
    ...(settings.speaks ? { speech: speechConfig(options, settings, context) } : {}),
  };
}

function speechConfig(options: RunOptions, settings: Settings, context: RunContext): NonNullable<RunConfig['speech']> {
  const { speech } = settings.dialect;
  const { asr } = settings.quality;
  return {
    voice: options.speech?.voice ?? null,
    text: settings.textDelivery,
    playbackBufferMs: settings.playbackBufferMs,
    ...(context.dialect.transport === 'http'
      ? {
          http: {
            responseFormat: speech.responseFormat,
            streamFormat: speech.streamFormat,
            outputRate: speech.outputRate,
            instructions: speech.instructions ?? null,
          },
        }
      : {}),
    ...(settings.quality.sessions > 0 && settings.workers === 1
      ? {
          quality: {
            sessions: settings.quality.sessions,
            asr: { target: asr.target !== undefined ? redactUrl(asr.target) : 'built-in', protocol: asr.protocol, model: asr.model },
          },
        }
      : {}),
  };
}

/** Finished (completed or failed) sessions of a logged run, by level; incomplete ones run again. */
function finishedSessions(logged: LoggedSession[]): Map<string, Map<number, LoggedSession>> {
  const byLevel = new Map<string, Map<number, LoggedSession>>();
  for (const entry of logged) {
    if (entry.record.outcome.status === 'incomplete') continue;
    if (!byLevel.has(entry.level)) byLevel.set(entry.level, new Map());
    byLevel.get(entry.level)!.set(entry.record.index, { ...entry, record: upgradeRecord(entry.record) });
  }
  return byLevel;
}

async function checkResumeLog(dir: string): Promise<void> {
  try {
    await access(join(dir, SESSION_LOG));
  } catch {
    throw optionsError`${option('resume')} ${dir}: no ${SESSION_LOG} there; give the output folder of the run to continue`;
  }
}
