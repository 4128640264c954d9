import { cpus, hostname } from 'node:os';
import { describeMetrics } from '../metrics/catalog.js';
import { PERCENTILE_METHOD } from '../metrics/stats.js';
import { buildHeldBenchmark } from '../report/build.js';
import { buildRecord } from '../report/record.js';
import { REPORT_SCHEMA, REPORT_VERSION, type HeldReport, type ObservedTraffic, type RunConfig } from '../report/schema.js';
import { sessionEndMs, type SessionRecord, type Task } from '../timeline/types.js';
import { VERSION } from '../util/version.js';

/** What the proxy says of its place in the path: what observed latencies include and leave out. */
export const PROXY_POSITION =
  'between the clients and the server: a client frame is stamped when it reaches the proxy and a server frame when it reaches the proxy, ' +
  "so latencies include the proxy-to-server path both ways and leave out the client's network, its send buffering and its parsing";

export interface ObservedRun {
  startedAt: Date;
  protocol: string;
  /** The model most sessions named, else ''. */
  model: string;
  records: SessionRecord[];
  /** The most connections of each task open at once: each observed level's concurrency. */
  peakOpen: Partial<Record<Task, number>>;
  observed: Omit<ObservedTraffic, 'by' | 'position'>;
  /** A report of nothing yet, written as the proxy starts: what a killed proxy leaves beside its session log. */
  placeholder?: boolean;
}

/** The level of a task's observed sessions, in the session log and the report alike (so a render finds each session once). */
export const observedLevel = (task: Task): string => `observed ${task}`;

/** The load profile of a task's observed sessions: concurrent, at the most open at once. */
export const observedProfile = (peakOpen: number): { kind: 'concurrent'; concurrency: number } => ({ kind: 'concurrent', concurrency: Math.max(1, peakOpen) });

/**
 * Observed sessions as a voxbench report: the same schema and figures as a run's, one
 * level per task seen (traffic of transcription and speech generation through one proxy
 * is two workloads, each figured by its own task's metrics), each at the peak
 * concurrency of its task, marked `observed` with the proxy's position, so
 * `report render`, `compare` and the HTML read it like any other. `config.task` is the
 * first session's.
 */
export function observedReport(run: ObservedRun): HeldReport {
  const records = [...run.records].sort((a, b) => a.index - b.index);
  const byTask = new Map<Task, SessionRecord[]>();
  for (const record of records) byTask.set(record.timeline.task, [...(byTask.get(record.timeline.task) ?? []), record]);
  const task = records[0]?.timeline.task ?? 'stt';
  const serverTurns = records.some((r) => r.timeline.turnDetection === 'server');
  const config: RunConfig = {
    target: run.observed.upstream,
    builtInServer: false,
    task,
    protocol: run.protocol,
    model: run.model,
    language: null,
    prompt: null,
    turnDetection: serverTurns ? { type: 'server_vad', threshold: 0, prefixPaddingMs: 0, silenceDurationMs: 0 } : { type: 'none' },
    data: 'observed traffic',
    plan: { kind: 'single', profile: observedProfile(run.peakOpen[task] ?? 0) },
    maxSessions: null,
    maxSeconds: null,
    duration: null,
    rampUpMs: 0,
    window: {},
    stopOnErrorRate: null,
    slos: [],
    pricing: null,
    // The record (and so the HTML and Markdown) says where the figures were taken.
    meta: {
      client: { location: `observed by voxbench proxy at ${run.observed.listen}` },
      results: { timing_boundaries: `stamped at the proxy, ${PROXY_POSITION}` },
    },
    turnsPerSession: 1,
    padding: { leadMs: 0, trailMs: 0, gapMs: 0 },
    idleMs: 0,
    updateAtMs: null,
    eos: 'audio_end',
    chunkMs: 0,
    pace: 'observed (the clients paced themselves)',
    workers: 1,
    ackWindowMs: 0,
    timeouts: { connectMs: 0, readyMs: 0, finalMs: 0 },
    apiKey: null,
    tls: { ca: false, insecure: false },
  };
  const benchmarks = [...byTask].map(([task, taskRecords]) =>
    buildHeldBenchmark(
      {
        label: observedLevel(task),
        profile: observedProfile(run.peakOpen[task] ?? 0),
        startMs: taskRecords.reduce((t, r) => Math.min(t, r.timeline.startMs), Infinity),
        endMs: taskRecords.reduce((t, r) => Math.max(t, sessionEndMs(r.timeline)), -Infinity),
        eventLoopDelay: { meanMs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 },
        capHits: 0,
        records: taskRecords,
      },
      config,
    ),
  );
  const partial: Omit<HeldReport, 'record'> = {
    schema: REPORT_SCHEMA,
    version: REPORT_VERSION,
    voxbenchVersion: VERSION,
    startedAt: run.startedAt.toISOString(),
    environment: { node: process.version, platform: process.platform, arch: process.arch, cpus: cpus().length, hostname: hostname() },
    config,
    dataset: {
      root: 'observed traffic',
      kind: 'folder',
      fingerprint: 'observed',
      count: 0,
      skipped: 0,
      filteredOut: 0,
      totalAudioS: 0,
      shortestS: 0,
      longestS: 0,
      sampleRatesHz: [],
      splits: {},
      languages: {},
      withReference: 0,
      withWordTimings: 0,
      problems: [],
    },
    metricDefinitions: describeMetrics(),
    percentileMethod: PERCENTILE_METHOD,
    benchmarks: run.placeholder ? [] : benchmarks,
    ...(run.placeholder ? { stoppedBy: 'interrupted' as const } : {}),
    observed: { by: 'voxbench proxy', ...run.observed, position: PROXY_POSITION },
  };
  return { ...partial, record: buildRecord(partial, config.meta) };
}
