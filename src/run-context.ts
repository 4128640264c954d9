import type { WebSocketDialect } from './dialects/dialect.js';
import { createDialect } from './dialects/index.js';
import type { Clock } from './clock.js';
import { UsageError, type RunOptions, type Settings } from './config.js';
import { BUNDLED_SAMPLES_DIR } from './data/bundled.js';
import type { Dataset } from './data/dataset.js';
import { loadDataset } from './data/load.js';
import { execute, type Execution } from './load/execute.js';
import { arrivalSchedule, isOpenLoop, lanes, type LoadProfile } from './load/profiles.js';
import { prepareSample, type PreparedSample, type PreparedTurn } from './session/prepare.js';
import { runWebSocketSession } from './session/ws-runner.js';
import type { SessionRecord } from './timeline/types.js';

/** Everything needed to run sessions against a target, prepared before any clock starts. */
export interface RunContext {
  dialect: WebSocketDialect;
  /** The turns session `index` streams. */
  turnsOf(index: number): PreparedTurn[];
  /** Sessions a benchmark under `profile` runs: Infinity when a closed-loop duration alone bounds it. */
  sessionsFor(profile: LoadProfile): number;
  /** Whether the server acknowledges audio, once a session has found out. */
  serverAcks: { known?: boolean };
}

export function loadRunDataset(options: RunOptions): Promise<Dataset> {
  return loadDataset(options.data ?? BUNDLED_SAMPLES_DIR, options.dataset);
}

/** Builds the dialect and decodes, resamples, pads, chunks and encodes every sample once. */
export async function createRunContext(settings: Settings, dataset: Dataset): Promise<RunContext> {
  const dialect = createDialect(settings.protocol, settings.dialect);
  // Every dialect so far streams over WebSocket; HTTP dialects arrive with their tasks.
  if (dialect.transport !== 'websocket') throw new UsageError(`--protocol ${settings.protocol}: HTTP dialects cannot run yet`);
  const prepared = new Map<string, PreparedSample>();
  for (const sample of dataset.samples) {
    prepared.set(sample.id, await prepareSample(sample, dialect, settings.chunkMs, settings.padding, settings.eos));
  }
  const perSession = settings.turnsPerSession;
  return {
    dialect,
    serverAcks: {},
    // Session i streams samples i*T .. i*T+T-1, round robin over the dataset.
    turnsOf: (index) =>
      Array.from({ length: perSession }, (_, k) => {
        const sample = dataset.samples[(index * perSession + k) % dataset.samples.length]!;
        const { first, later } = prepared.get(sample.id)!;
        return k === 0 ? first : later;
      }),
    // With a duration: as many as start in it (open loop: the arrivals planned in it).
    // Else enough sessions to stream every sample once, and at least one per lane (or ten arrivals).
    sessionsFor: (profile) => {
      const cap = settings.maxSessions ?? Infinity;
      if (settings.duration !== undefined) return isOpenLoop(profile) ? arrivalSchedule(profile, cap, settings.rampUpMs, settings.duration * 1000).length : cap;
      return settings.maxSessions ?? Math.max(Math.ceil(dataset.samples.length / perSession), isOpenLoop(profile) ? 10 : lanes(profile));
    },
  };
}

export interface LevelRun {
  profile: LoadProfile;
  maxSessions: number;
  clock: Clock;
  signal?: AbortSignal;
  shard?: (index: number) => boolean;
  onSessionStart?(): void;
  onSessionEnd?(record: SessionRecord): void;
}

/** Runs one benchmark level's sessions (or this worker's share of them) in this thread. */
export function runLevel(context: RunContext, settings: Settings, target: string, level: LevelRun): Promise<Execution> {
  return execute({
    profile: level.profile,
    maxSessions: level.maxSessions,
    ...(settings.maxSeconds !== undefined ? { maxSeconds: settings.maxSeconds } : {}),
    ...(settings.duration !== undefined ? { durationMs: settings.duration * 1000 } : {}),
    rampUpMs: settings.rampUpMs,
    ...(settings.stopOnErrorRate ? { stopOnErrorRate: settings.stopOnErrorRate } : {}),
    clock: level.clock,
    ...(level.signal ? { signal: level.signal } : {}),
    ...(level.shard ? { shard: level.shard } : {}),
    runSession: async (index, plannedStartMs, signal) => {
      const turns = context.turnsOf(index);
      const { timeline, outcome } = await runWebSocketSession({
        url: target,
        headers: settings.headers,
        dialect: context.dialect,
        inputs: turns,
        pace: settings.pace,
        plannedStartMs,
        idleMs: settings.idleMs,
        ...(settings.updateAtMs !== undefined ? { updateAtMs: settings.updateAtMs } : {}),
        ackWindowMs: settings.ackWindowMs,
        waitForAnswer: settings.waitForAnswer,
        ...(settings.bargeInAtMs !== undefined ? { bargeInAtMs: settings.bargeInAtMs } : {}),
        serverAcks: context.serverAcks,
        timeouts: settings.timeouts,
        clock: level.clock,
        signal,
        socketOptions: settings.tls,
      });
      return { index, sampleIds: turns.map((t) => t.sampleId), split: turns[0]!.split, timeline, outcome };
    },
    ...(level.onSessionStart ? { onSessionStart: level.onSessionStart } : {}),
    ...(level.onSessionEnd ? { onSessionEnd: level.onSessionEnd } : {}),
  });
}
