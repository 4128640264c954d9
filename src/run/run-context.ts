import { mkdir } from 'node:fs/promises';
import { isMainThread } from 'node:worker_threads';
import { defaultCacheDir, PreparedAudioCache } from '../audio/prepared-cache.js';
import { preparedAudioReader } from '../audio/prepared-source.js';
import type { Dialect, HttpDialect, WebSocketDialect } from '../dialects/dialect.js';
import { createDialect, DEFAULT_PROTOCOL, DIALECTS, isHttpProtocol, loadDialects, specOf } from '../dialects/index.js';
import type { Clock } from '../runtime/clock.js';
import type { RunOptions } from '../config/options.js';
import { resolveSettings, type Settings } from '../config/settings.js';
import { option, optionsError } from '../config/errors.js';
import { BUNDLED_SAMPLES_DIR } from '../data/bundled.js';
import type { Dataset, Sample, TextSample } from '../data/dataset.js';
import { hubCacheDir } from '../data/hub/cache.js';
import type { HubOptions } from '../data/hub/source.js';
import { loadDataset, type DatasetOptions } from '../data/load.js';
import { loadTextDataset } from '../data/text.js';
import { execute, type Execution } from './execute.js';
import { arrivalSchedule, isOpenLoop, isStaged, lanes, type LoadProfile } from '../load/profiles.js';
import { valuesNeeded } from '../metrics/slo.js';
import type { ReplayedSession } from '../load/replay.js';
import type { Pace } from '../session/pace.js';
import type { PreparedRequest } from '../session/http-runner.js';
import { prepareSample, prepareSilence, type PreparedTurn } from '../session/prepare.js';
import { prepareText, tokens, type PreparedText, type TextDelivery } from '../session/prepare-text.js';
import type { SessionResult } from '../session/runner.js';
import type { ReceivedAudio } from '../session/received-audio.js';
import { runWebSocketSession } from '../session/ws-runner.js';
import { optional } from '../util/optional.js';
import { isSpeechTask, type AskedFor, type SessionOutcome, type SessionRecord, type StreamGate } from '../timeline/types.js';
import type { StampProbe } from '../runtime/stamp-probe.js';

/** Everything needed to run sessions against a target, prepared before any clock starts. */
export interface RunContext {
  dialect: Dialect;
  /** Sessions a benchmark under `profile` runs: Infinity when a closed-loop duration alone bounds it. */
  sessionsFor(profile: LoadProfile): number;
  /** Runs session `index` against `target`, due at `plannedStartMs` (its stream held by `gate` in a connect phase). */
  runSession(target: string, index: number, plannedStartMs: number, clock: Clock, signal: AbortSignal, gate?: StreamGate): Promise<SessionRecord>;
  /**
   * The audio a session received, undecoded, kept for the after-run analysis (speech
   * generation, the first `--quality-sessions` of a benchmark): given once, then let go.
   */
  takeAudio: (record: SessionRecord) => ReceivedAudio | undefined;
  /** Lets go of what the sessions shared (idle keep-alive connections). */
  close(): void;
}

/** What a run sends: recordings, or, for speech generation, prompts (a transcription dataset's references among them). */
export type RunDataset = Dataset<Sample> | Dataset<TextSample>;

/**
 * The run's samples, each recording already prepared at the dialect's rate (mono PCM16:
 * decoded and resampled across worker threads, or read from the prepared-audio cache).
 */
export async function loadRunDataset(options: RunOptions): Promise<RunDataset> {
  const protocol = options.protocol ?? DEFAULT_PROTOCOL;
  const selection = withHubCache(options);
  if (isSpeechTask(DIALECTS[protocol])) return loadTextDataset(options.data ?? BUNDLED_SAMPLES_DIR, selection);
  // Requests upload each file as the dataset holds it unless told to re-encode it.
  const keepFiles = isHttpProtocol(protocol) && options.transcription?.uploadFormat === undefined;
  await loadDialects([protocol]);
  const rate = createDialect(protocol, resolveSettings(options).dialect).sampleRate;
  // A --workers thread reads what the main thread prepared (from the cache) or prepares its copy alone.
  const audio = preparedAudioReader(rate, { ...(await audioCache(options.audioCache)), ...(isMainThread ? {} : { threads: 1 }) });
  try {
    return await loadDataset(options.data ?? BUNDLED_SAMPLES_DIR, { ...selection, ...(keepFiles ? { keepFiles } : {}), audio });
  } finally {
    await audio.close();
  }
}

/** The dataset options with Hub downloads kept beside the prepared audio (`--cache-dir`), or nowhere with `--no-cache`. */
function withHubCache(options: RunOptions): DatasetOptions {
  const cacheDir: string | false | undefined =
    options.audioCache === false ? false : options.audioCache !== undefined ? hubCacheDir(options.audioCache) : undefined;
  const hub: HubOptions = { ...(cacheDir !== undefined ? { cacheDir } : {}), ...options.dataset?.hub };
  return { ...options.dataset, ...(Object.keys(hub).length > 0 ? { hub } : {}) };
}

/** The prepared-audio cache: a folder given must be writable; the default one is used when it can be. */
async function audioCache(given: string | false | undefined): Promise<{ cache?: PreparedAudioCache }> {
  const dir = given === false ? undefined : (given ?? defaultCacheDir());
  if (dir === undefined) return {};
  if (given !== undefined) {
    await mkdir(dir, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
      throw optionsError`${option('audioCache')} ${dir}: cannot create the folder (${err.code ?? err.message}); give a folder you can write, or ${option('audioCache: false', 'audioCache.off')}`;
    });
  }
  return { cache: new PreparedAudioCache(dir) };
}

/** Builds the dialect and prepares every sample's media once (chunked and encoded; the audio came decoded and resampled from loadRunDataset). */
/**
 * Where a WebSocket dialect finds the built-in server, which serves them all on one port:
 * its `/v1/realtime` (`realtimeUrl`), or its root for a speech dialect or one with a path
 * of its own, which the dialect's connect URL puts there.
 */
export function builtInWebSocketTarget(settings: Settings, realtimeUrl: string): string {
  return settings.speaks || specOf(settings.protocol).path !== undefined ? new URL('/', realtimeUrl).toString() : realtimeUrl;
}

/** With `replay`, session i sends what the replay planned for it (its samples, chunk size, cadence and pauses as recorded). */
export async function createRunContext(settings: Settings, dataset: RunDataset, replay?: readonly ReplayedSession[]): Promise<RunContext> {
  // Speakers are asked for only where there are reference turns to score them against.
  const diarize = dataset.samples.some((s) => s.kind !== 'text' && s.turns !== undefined);
  await loadDialects([settings.protocol]);
  const dialect = createDialect(settings.protocol, { ...settings.dialect, ...(diarize ? { diarize } : {}) });
  const perSession = settings.turnsPerSession;
  const byId = new Map<string, Sample | TextSample>(dataset.samples.map((s) => [s.id, s]));
  // Session i sends samples i*T .. i*T+T-1, round robin over the dataset; a replayed one, the samples matched to its recording.
  const samplesOf = (index: number): Array<Sample | TextSample> =>
    replay
      ? replay[index]!.sampleIds.map((id) => byId.get(id)!)
      : Array.from({ length: perSession }, (_, k) => dataset.samples[(index * perSession + k) % dataset.samples.length]!);
  // A replayed speech session asks for its recorded voice, in a dialect of its own (a pure codec: one per voice).
  const voiced = new Map<string, Dialect>();
  const dialectFor = (voice: string | undefined): Dialect => {
    if (voice === undefined || voice === settings.dialect.speech.voice) return dialect;
    if (!voiced.has(voice)) voiced.set(voice, createDialect(settings.protocol, { ...settings.dialect, speech: { ...settings.dialect.speech, voice } }));
    return voiced.get(voice)!;
  };
  // What each session asked for beyond its inputs, recorded as the proxy records a live client's.
  const askedFor = (index: number): AskedFor =>
    isSpeechTask(dialect.task)
      ? {
          ...optional('voice', replay?.[index]?.voice ?? settings.dialect.speech.voice),
          format: settings.dialect.speech.responseFormat,
          sampleRate: dialect.sampleRate,
        }
      : { sampleRate: dialect.sampleRate };
  const record = (index: number, samples: Array<Sample | TextSample>, result: SessionResult): SessionRecord => ({
    index,
    sampleIds: samples.map((s) => s.id),
    split: samples[0]!.split,
    ...result,
    // The listener's player, for the playback figures (recomputed with the same buffer later).
    timeline: { ...result.timeline, asked: askedFor(index), ...(settings.speaks ? { playbackBufferMs: settings.playbackBufferMs } : {}) },
  });
  const sessions =
    dialect.transport === 'websocket'
      ? await webSocketSessions(settings, dataset, dialect, replay, (session) => dialectFor(session.voice) as WebSocketDialect)
      : await httpSessions(settings, dataset, dialect);
  const speaks = isSpeechTask(dialect.task);
  const audio = new WeakMap<SessionRecord, ReceivedAudio>();
  return {
    dialect,
    runSession: async (target, index, plannedStartMs, clock, signal, gate) => {
      const samples = samplesOf(index);
      const keepAudioBytes = speaks && index < settings.quality.sessions ? settings.quality.keepAudioBytes : 0;
      const result = await sessions.run(target, samples, plannedStartMs, clock, signal, keepAudioBytes, gate, replay?.[index]);
      const done = record(index, samples, { timeline: result.timeline, outcome: withKeyNote(result.outcome, settings.keyNote) });
      if (result.audio) audio.set(done, result.audio);
      return done;
    },
    takeAudio: (r) => {
      const kept = audio.get(r);
      audio.delete(r);
      return kept;
    },
    close: () => sessions.close(),
    // With a duration or stages: as many as start in it (open loop: the arrivals planned in it).
    // Else enough sessions to send every sample once, and at least one per lane (or ten arrivals), and in a capacity search enough for its SLOs.
    sessionsFor: (profile) => {
      const cap = settings.maxSessions ?? Infinity;
      if (profile.kind === 'replay')
        return Math.min(cap, arrivalSchedule(profile, cap, 0, settings.duration === undefined ? Infinity : settings.duration * 1000).length);
      if (isStaged(profile))
        return isOpenLoop(profile) ? arrivalSchedule(profile, cap, 0, settings.duration === undefined ? Infinity : settings.duration * 1000).length : cap;
      if (settings.duration !== undefined) return isOpenLoop(profile) ? arrivalSchedule(profile, cap, settings.rampUpMs, settings.duration * 1000).length : cap;
      const enough = Math.max(Math.ceil(dataset.samples.length / perSession), isOpenLoop(profile) ? 10 : lanes(profile));
      // A capacity search judges each level by its SLOs: enough sessions that each percentile named rests on the values it needs.
      const judged = settings.plan.kind === 'capacity' ? Math.ceil(valuesNeeded(settings.slos) / perSession) : 0;
      return settings.maxSessions ?? Math.max(enough, judged);
    },
  };
}

/** Statuses, codes and words by which servers refuse a key (HTTP 401/403, Speechmatics not_authorised, ElevenLabs auth_error, AssemblyAI's 1008 reason). */
const AUTH_REFUSAL = /unauthori[sz]ed|not_authori[sz]ed|auth_error|authentication|invalid[ _-]?(api[ _-]?)?key/i;

/** A session refused for its key says which key was sent (by its source) or that none was, and where the dialect looks: the fix is in the user's hands. */
export function withKeyNote(outcome: SessionOutcome, note: string): SessionOutcome {
  if (outcome.status !== 'failed') return outcome;
  const { failure } = outcome;
  const refused = failure.httpStatus === 401 || failure.httpStatus === 403 || AUTH_REFUSAL.test(`${failure.code ?? ''} ${failure.message}`);
  return refused ? { ...outcome, failure: { ...failure, message: `${failure.message} (${note})` } } : outcome;
}

/** An unlabelled sample is in the language the run asks the server for, if it asks. */
function labelled(sample: Sample, settings: Settings): Sample {
  const language = sample.language ?? settings.dialect.language;
  return language === undefined ? sample : { ...sample, language };
}

interface TransportSessions {
  run(
    target: string,
    samples: Array<Sample | TextSample>,
    plannedStartMs: number,
    clock: Clock,
    signal: AbortSignal,
    keepAudioBytes: number,
    gate?: StreamGate,
    replayed?: ReplayedSession,
  ): Promise<SessionResult>;
  close(): void;
}

/** Streaming sessions: each sample's audio as turns, the first and the later ones; or each prompt's text. */
async function webSocketSessions(
  settings: Settings,
  dataset: RunDataset,
  dialect: WebSocketDialect,
  replay?: readonly ReplayedSession[],
  dialectOf: (session: ReplayedSession) => WebSocketDialect = () => dialect,
): Promise<TransportSessions> {
  const prepared = new Map<string, { first: PreparedTurn | PreparedText; later: PreparedTurn | PreparedText }>();
  const replayed = replay ? await replayTurns(replay, dataset, dialect, settings) : undefined;
  for (const sample of dataset.samples) {
    if (sample.kind === 'text') {
      const text = prepareText(sample, dialect, settings.textDelivery);
      prepared.set(sample.id, { first: text, later: text });
    } else {
      prepared.set(sample.id, await prepareSample(labelled(sample, settings), dialect, settings.chunkMs, settings.padding, settings.eos));
    }
  }
  const waits = settings.waitForAnswer || settings.bargeInAtMs !== undefined || replay?.some((r) => r.bargeInsMs?.some((ms) => ms !== null));
  const silence = waits && settings.waitAudio === 'silence' ? prepareSilence(dialect, settings.chunkMs) : undefined;
  /** Whether the server acknowledges audio, once a session has found out. */
  const serverAcks: { known?: boolean } = {};
  return {
    close: () => {},
    run: (target, samples, plannedStartMs, clock, signal, keepAudioBytes, gate, session) =>
      runWebSocketSession({
        keepAudioBytes,
        caps: settings.caps,
        url: target,
        headers: settings.headers,
        dialect: session ? dialectOf(session) : dialect,
        inputs: session ? replayed!.inputsOf(session) : samples.map((sample, k) => (k === 0 ? prepared.get(sample.id)!.first : prepared.get(sample.id)!.later)),
        pace: session ? replayed!.paceOf(session) : settings.pace,
        plannedStartMs,
        ...(gate ? { gate } : {}),
        idleMs: settings.idleMs,
        ...optional('updatesAtMs', session ? replayed!.updatesAtMsOf(session) : settings.updateAtMs !== undefined ? [settings.updateAtMs] : undefined),
        ackWindowMs: settings.ackWindowMs,
        maskFrames: settings.maskFrames,
        waitForAnswer: settings.waitForAnswer,
        ...optional(
          'bargeInsAtMs',
          session
            ? replayed!.bargeInsAtMsOf(session)
            : settings.bargeInAtMs !== undefined
              ? samples.map((_, k) => (k > 0 ? settings.bargeInAtMs : undefined))
              : undefined,
        ),
        ...(silence ? { silence } : {}),
        serverAcks,
        timeouts: settings.timeouts,
        clock,
        signal,
        socketOptions: settings.tls,
      }),
  };
}

/**
 * A replay's turns: each matched sample prepared with its session's recorded chunk size,
 * without padding, a later input led by its recorded pause as silence; and each session's
 * pace, its recorded cadence (a chunk every `cadenceMs`: real time when it equals the chunk).
 */
async function replayTurns(
  replay: readonly ReplayedSession[],
  dataset: RunDataset,
  dialect: WebSocketDialect,
  settings: Settings,
): Promise<{
  inputsOf(session: ReplayedSession): Array<PreparedTurn | PreparedText>;
  paceOf(session: ReplayedSession): Pace;
  /** Its recorded settings changes as the runner times them: ms of audio into the stream (wall time after the first frame, at its pace). */
  updatesAtMsOf(session: ReplayedSession): number[] | undefined;
  /** Its recorded barge-ins as the runner times them: per input, ms of audio after the answer it spoke over began to sound. */
  bargeInsAtMsOf(session: ReplayedSession): Array<number | undefined> | undefined;
}> {
  const byId = new Map<string, Sample | TextSample>(dataset.samples.map((s) => [s.id, s]));
  const turns = new Map<string, PreparedTurn | PreparedText>();
  const chunkOf = (session: ReplayedSession): number => Math.max(1, Math.round(session.chunkMs ?? settings.chunkMs));
  // A text input's key is its rate: prompts are streamed at the recorded characters per second, as words (the tokens a text stream sends).
  const keyOf = (session: ReplayedSession, k: number): string =>
    `${session.sampleIds[k]}|${chunkOf(session)}|${k === 0 ? 'first' : (session.pausesMs[k - 1] ?? 0)}|${session.charsPerS?.[k] ?? ''}`;
  for (const session of replay) {
    for (const [k, id] of session.sampleIds.entries()) {
      const gapMs = k === 0 ? 'first' : (session.pausesMs[k - 1] ?? 0);
      const key = keyOf(session, k);
      if (turns.has(key)) continue;
      const sample = byId.get(id)!;
      if (sample.kind === 'text') turns.set(key, prepareText(sample, dialect, textRate(sample, session.charsPerS?.[k], settings.textDelivery)));
      else {
        const padding = { leadMs: 0, trailMs: 0, gapMs: gapMs === 'first' ? 0 : gapMs };
        const both = await prepareSample(labelled(sample, settings), dialect, chunkOf(session), padding, settings.eos);
        turns.set(key, gapMs === 'first' ? both.first : both.later);
      }
    }
  }
  // The runner times updates and barge-ins in ms of audio; the recording, in wall time.
  const audioPerWallMs = (session: ReplayedSession): number => {
    const pace = paceOf(session);
    return pace.kind === 'realtime' ? pace.speed : 1;
  };
  const paceOf = (session: ReplayedSession): Pace =>
    settings.pace.kind === 'none' || !session.cadenceMs || !session.chunkMs
      ? settings.pace
      : { kind: 'realtime', speed: cadenceSpeed(session.chunkMs, session.cadenceMs) };
  return {
    paceOf,
    updatesAtMsOf: (session) => (session.updatesAfterMs.length > 0 ? session.updatesAfterMs.map((ms) => ms * audioPerWallMs(session)) : undefined),
    bargeInsAtMsOf: (session) => session.bargeInsMs?.map((ms) => (ms === null ? undefined : ms * audioPerWallMs(session))),
    inputsOf: (session) => session.sampleIds.map((_, k) => turns.get(keyOf(session, k))!),
  };
}

/** A prompt sent at a recorded rate: its words streamed at the characters per second recorded; sent whole when it was. */
function textRate(sample: TextSample, charsPerS: number | null | undefined, run: TextDelivery): TextDelivery {
  if (charsPerS === undefined) return run;
  if (charsPerS === null) return { kind: 'all' };
  const chars = [...sample.text].length;
  return { kind: 'stream', tokensPerS: (charsPerS * tokens(sample.text).length) / Math.max(1, chars), firstTokenMs: 0 };
}

/** A recorded cadence as a pace: real time when within 5% of it (a timer's jitter), else the speed it was sent at. */
function cadenceSpeed(chunkMs: number, cadenceMs: number): number {
  const speed = chunkMs / cadenceMs;
  return Math.abs(speed - 1) < 0.05 ? 1 : Math.round(speed * 100) / 100;
}

/** Request sessions: one request per sample, over a keep-alive pool shared by the run's sessions, the client's HTTP path warmed. */
async function httpSessions(settings: Settings, dataset: RunDataset, dialect: HttpDialect): Promise<TransportSessions> {
  // Loaded only for an HTTP dialect, as a WebSocket one loads them never.
  const [{ httpAgents }, { runHttpSession }, { warmHttpClient }, { prepareAudioRequest, prepareTextRequest }] = await Promise.all([
    import('../session/http-agents.js'),
    import('../session/http-runner.js'),
    import('../session/http-warm-up.js'),
    import('../session/prepare-request.js'),
  ]);
  const prepared = new Map<string, PreparedRequest>();
  for (const sample of dataset.samples) {
    if (sample.kind === 'text') prepared.set(sample.id, prepareTextRequest(sample, dialect));
    else prepared.set(sample.id, await prepareAudioRequest(labelled(sample, settings), dialect, settings.eos, settings.uploadFormat));
  }
  await warmHttpClient(settings.tls);
  const agents = httpAgents(settings.tls);
  return {
    close: () => agents.destroy(),
    run: (target, samples, plannedStartMs, clock, signal, keepAudioBytes) =>
      runHttpSession({
        keepAudioBytes,
        caps: settings.caps,
        url: target,
        headers: settings.headers,
        dialect,
        inputs: samples.map((sample) => prepared.get(sample.id)!),
        agents: agents.of(target),
        plannedStartMs,
        timeouts: settings.timeouts,
        clock,
        signal,
      }),
  };
}

export interface LevelRun {
  profile: LoadProfile;
  maxSessions: number;
  clock: Clock;
  signal?: AbortSignal;
  shard?: (index: number) => boolean;
  /** Closed loop: the lanes of the whole level that run here (see shards.ts). */
  lanes?: { mine: number[]; of: number };
  /** The level's start shared by worker threads; default when this thread starts it. */
  startAtMs?: number;
  /** The end of the level's connect phase, shared by worker threads (see execute.ts). */
  streamStart?: () => Promise<number>;
  onSessionStart?: () => void;
  onSessionEnd?: (record: SessionRecord) => void;
  /** This thread's receive-stamp probe (see execute.ts). */
  probe?: StampProbe;
}

/** Runs one benchmark level's sessions (or this worker's share of them) in this thread. */
export function runLevel(context: RunContext, settings: Settings, target: string, level: LevelRun): Promise<Execution> {
  return execute({
    profile: level.profile,
    maxSessions: level.maxSessions,
    ...(settings.maxSeconds !== undefined ? { maxSeconds: settings.maxSeconds } : {}),
    ...(settings.duration !== undefined ? { durationMs: settings.duration * 1000 } : {}),
    rampUpMs: settings.rampUpMs,
    // Paced lanes start one chunk period apart in all, so their deadlines interleave; streaming ones after a connect phase.
    phaseSpreadMs: settings.pace.kind === 'none' ? 0 : settings.chunkMs / settings.pace.speed,
    connectFirst: context.dialect.transport === 'websocket',
    ...(level.streamStart ? { streamStart: level.streamStart } : {}),
    ...(level.lanes ? { lanes: level.lanes } : {}),
    ...(level.startAtMs !== undefined ? { startAtMs: level.startAtMs } : {}),
    ...(settings.stopOnErrorRate ? { stopOnErrorRate: settings.stopOnErrorRate } : {}),
    ...(settings.maxErrors !== undefined ? { maxErrors: settings.maxErrors } : {}),
    clock: level.clock,
    ...(level.signal ? { signal: level.signal } : {}),
    ...(level.shard ? { shard: level.shard } : {}),
    ...(level.probe ? { probe: level.probe } : {}),
    // A replay level's sessions are the run's from its first: their index says which recorded session each plays.
    runSession: (index, plannedStartMs, signal, gate) =>
      context.runSession(target, index + (level.profile.kind === 'replay' ? level.profile.first : 0), plannedStartMs, level.clock, signal, gate),
    ...(level.onSessionStart ? { onSessionStart: level.onSessionStart } : {}),
    ...(level.onSessionEnd ? { onSessionEnd: level.onSessionEnd } : {}),
  });
}
