import { descriptorOf, DIALECTS, isHttpProtocol, PROTOCOLS, type DialectSettings, type Protocol } from './dialects/index.js';
import { authHeaders } from './dialects/spec.js';
import { metricsFor } from './metrics/catalog.js';
import { STREAM_FORMATS, type SpeechSettings, type StreamFormat } from './dialects/speech-http.js';
import type { TextDelivery } from './session/prepare-text.js';
import { DEFAULT_PLAYBACK_BUFFER_MS } from './views/playback.js';
import type { OpenAITurnDetection } from './dialects/realtime-common.js';
import { DEFAULT_TRANSCRIPTION, TRANSCRIPTION_FORMATS, type TranscriptionOptions } from './dialects/transcriptions/client.js';
import type { DatasetOptions } from './data/load.js';
import type { ErrorRateStop } from './load/error-stop.js';
import type { LoadPlan } from './load/plan.js';
import { isOpenLoop, type LoadProfile } from './load/profiles.js';
import { NORMALIZER_NAMES, normalizerChoice, type NormalizerChoice } from './metrics/normalizers/index.js';
import { parseSlo, SloError, type Slo } from './metrics/slo.js';
import type { MeasurementWindow } from './metrics/window.js';
import type { Pricing } from './metrics/cost.js';
import type { OutputFormat } from './report/outputs.js';
import type { Meta, RunConfig } from './report/schema.js';
import { isSpeechTask, type SessionRecord, type Task } from './timeline/types.js';
import type { ServerOptions } from './server/server.js';
import type { Pace } from './session/pace.js';
import type { UploadFormat } from './session/prepare-request.js';
import { NO_PADDING, type EosPreference, type Padding } from './session/prepare.js';
import { DEFAULT_TIMEOUTS, type StageTimeouts } from './session/runner.js';
import { DEFAULT_ACK_WINDOW_MS } from './session/ws-runner.js';
import { DEFAULT_SESSION_CAPS, type SessionCaps } from './session/session-caps.js';

/** What the client streams while it waits between utterances: silence, as a live microphone does, or nothing (a paused stream). */
export const WAIT_AUDIO = ['silence', 'pause'] as const;
export type WaitAudio = (typeof WAIT_AUDIO)[number];

export interface RunOptions {
  /** WebSocket URL of the server; omitted, the built-in simulated server is started on loopback. */
  target?: string;
  /** Wire dialect. Default `vllm`. */
  protocol?: Protocol;
  /** The model: named in vLLM's `session.update`, or OpenAI's transcription model. Required with `target`. */
  model?: string;
  /** Transcription language and prompt (OpenAI and batch dialects). */
  language?: string;
  prompt?: string;
  /** Batch transcription (HTTP dialects): response format, temperature, streaming, translation, and how the file is uploaded (default: as the dataset holds it). */
  transcription?: Partial<TranscriptionOptions> & { uploadFormat?: UploadFormat };
  /** Speech to speech: the agent's instructions (system prompt), sent in `session.update`. */
  instructions?: string;
  /** Speech generation over WebSocket: the text all at once (default), or streamed like an LLM's tokens. */
  textDelivery?: TextDelivery;
  /** Speech generation: audio the simulated player buffers before it starts, ms. Default 200. */
  playbackBufferMs?: number;
  /** OpenAI dialects: who ends turns. Default `none` (the client commits each turn). */
  turnDetection?: OpenAITurnDetection;
  /** Speech generation over HTTP: voice and formats. */
  speech?: SpeechOptions;
  /** Speech generation: the after-run quality check. */
  quality?: QualityOptions;
  /** The dataset: a folder of audio files, a JSONL manifest, Parquet shards or a save_to_disk folder; default the bundled samples. */
  data?: string;
  /** Which samples of the dataset, in which order, and how to read its columns. */
  dataset?: DatasetOptions;
  /** Where prepared audio is kept between runs (`--cache-dir`), or false for nowhere (`--no-cache`); default `$XDG_CACHE_HOME/voxbench/audio` or `~/.cache/voxbench/audio`. */
  audioCache?: string | false;
  /** One benchmark under this profile (default synchronous). */
  profile?: LoadProfile;
  /** Instead: one `concurrent` benchmark per level, in order. */
  sweep?: number[];
  /** Instead: search the largest level at which every SLO holds (needs `slos`). */
  capacity?: CapacityOptions;
  /** Sessions per benchmark; default enough to stream every sample once (at least one per lane). */
  maxSessions?: number;
  /** Time limit per benchmark, seconds. */
  maxSeconds?: number;
  /** Run each benchmark this long, seconds: sessions keep starting until then (closed loop) or arrive for that long (open loop), and those started finish. */
  duration?: number;
  /** Spread lane starts (closed loop) or ramp the arrival rate (open loop) over this long, ms. */
  rampUpMs?: number;
  /** Sessions left out of the figures at the start and end of each benchmark. */
  window?: MeasurementWindow;
  /** Stop a benchmark once its error rate exceeds a limit. */
  stopOnErrorRate?: ErrorRateStop;
  /** Stop a benchmark once this many of its sessions failed. */
  maxErrors?: number;
  /** SLO expressions (see src/metrics/slo.ts), judged per benchmark. */
  slos?: string[];
  /** How transcripts are normalized for WER and CER: `auto` (default: whisper-english for English or unlabelled inputs, whisper-basic otherwise) or a normalizer's name or id. */
  normalizer?: string;
  /** Deployment price per replica-hour and replica count, for cost per audio hour. */
  pricing?: Pricing;
  /** User entries for the reproducibility record, by section (deployment, input, client, session, results). */
  meta?: Meta;
  /** Formats written into `outputDir` besides report.json. */
  outputs?: OutputFormat[];
  /** Continue the run logged in this folder: finished sessions are kept, not repeated. */
  resume?: string;
  /** Consecutive utterances per session. Default 1. */
  turnsPerSession?: number;
  /** Silence around utterances, ms. Default none. */
  padding?: Partial<Padding>;
  /** Stay connected this long after the last turn, ms. */
  idleMs?: number;
  /** Send a mid-stream `session.update` this long after the first audio, ms. */
  updateAtMs?: number;
  /** Where end of speech comes from for `finalization_ms`. Default `auto` (label, else vad, else audio end). */
  eos?: EosPreference;
  /** Audio per chunk, ms. Default 100. */
  chunkMs?: number;
  /** Default real time. */
  pace?: Pace;
  /** Server turn detection: wait for each utterance's answer before streaming the next (client commits always wait). Default false. */
  waitForAnswer?: boolean;
  /** Speech to speech, server turn detection: start each later utterance this long after the previous answer begins to sound (a barge-in), ms of audio. */
  bargeInAtMs?: number;
  /** While waiting between utterances (`waitForAnswer`, `bargeInAtMs`): stream silence at the run's pace, as a live microphone does, or pause the stream. Default `silence`. */
  waitAudio?: WaitAudio;
  /** Unpaced: most audio sent but not acknowledged by a server that acknowledges, ms; 0 ignores acknowledgements. Default 1000. */
  ackWindowMs?: number;
  /** Mask client frames with random keys, as browsers must; by default the key is all zeros (see ws-session.ts). */
  maskFrames?: boolean;
  timeouts?: Partial<StageTimeouts>;
  /** How much of what the server sends one session keeps (events) and takes (bytes). Default DEFAULT_SESSION_CAPS. */
  caps?: Partial<SessionCaps>;
  /** Sent as `Authorization: Bearer`; never written to reports. */
  apiKey?: string;
  /** TLS for `wss://` targets: extra trusted CA certificates (PEM), or no verification at all. */
  tls?: { ca?: string; insecure?: boolean };
  /** Where `report.json` goes; omitted, nothing is written. */
  outputDir?: string;
  /** Settings of the built-in server, when there is no `target`. */
  server?: Partial<ServerOptions>;
  /** Spread sessions over this many worker threads. Default 1 (this thread). */
  workers?: number;
  /** Run only this share of every benchmark's sessions (`--shard I/N`, I from 0); the other shards run the rest. */
  shard?: Shard;
  /** The run's id, shared by all its shards so their reports merge as one run; default a fresh UUID (or the resumed run's). */
  runId?: string;
  /** Aborting stops the run; what finished is kept and the report is marked. */
  signal?: AbortSignal;
  /** Called once the run is set up, just before the clock starts, with the report's config. */
  onRunStart?(config: RunConfig): void;
  /** Called as each benchmark level starts. */
  onLevelStart?(level: LevelStart): void;
  /** Called as each session starts, in this thread or a worker. */
  onSessionStart?(level: string): void;
  /** Called as each session ends: how many of the level's sessions are done, of how many (Infinity when only a duration bounds them), and the level. */
  onSessionEnd?(record: SessionRecord, done: number, expected: number, level: string): void;
}

export interface SpeechOptions {
  voice?: string;
  instructions?: string;
  /** Default `pcm`; streaming takes `pcm` or `wav`. */
  responseFormat?: string;
  /** `sse`, `audio` (raw) or `none` (one body, task batch_tts). Default `audio`. */
  streamFormat?: StreamFormat;
  /** Sample rate of headerless PCM, Hz. Default 24000. */
  outputRate?: number;
}

/** The after-run check of generated speech: its levels and format, and a round trip through a transcription server. */
export interface QualityOptions {
  /** Sessions analysed per benchmark, the first to start. Default 20; 0 turns the analysis off. */
  sessions?: number;
  /** Transcription server for the round trip (ws:// or wss://); omitted, a built-in server is started. */
  asrTarget?: string;
  /** Its dialect (a speech-to-text one). Default `vllm`. */
  asrProtocol?: Protocol;
  /** Its model. Default the dialect's own default. */
  asrModel?: string;
  /** Sent to the transcription server as `Authorization: Bearer`; never written to reports. */
  asrApiKey?: string;
  /** Received audio kept per session for the analysis, MB. Default 16. */
  keepAudioMb?: number;
}

export interface QualitySettings {
  sessions: number;
  keepAudioBytes: number;
  asr: { target?: string; protocol: Protocol; model: string; apiKey?: string };
}

export interface LevelStart {
  label: string;
  /** Its place among the run's levels, from 1; `of` is unknown (undefined) in a capacity search. */
  number: number;
  of?: number;
  /** Sessions it runs (Infinity when only the duration bounds them), and those a resumed run already has. */
  expected: number;
  kept: number;
  durationMs?: number;
}

export interface CapacityOptions {
  /** Search concurrency (closed loop) or the Poisson arrival rate (open loop). */
  by: 'concurrency' | 'rate';
  /** First level tried. Default 1. */
  start?: number;
  /** Highest level tried. Default 256 sessions or 1000 arrivals/s. */
  max?: number;
  /** Rates: relative width of the final bracket. Default 0.1. */
  tolerance?: number;
  /** Rates: seed of the arrival process. Default 1. */
  seed?: number;
  /** Rates: cap on open sessions. */
  maxOpen?: number;
}

/** One share of a run's sessions: shard `index` (from 0) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** Invalid options or input; the message says which and what to do. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Options with defaults applied and every value checked. */
export interface Settings {
  protocol: Protocol;
  model: string;
  /** What the dialect is built with. */
  dialect: DialectSettings;
  /** Speech generation: the after-run quality check. */
  quality: QualitySettings;
  turnDetection: OpenAITurnDetection;
  /** Speech generation (the dialect's task is `tts` or `batch_tts`): it sends prompts, not recordings. */
  speaks: boolean;
  textDelivery: TextDelivery;
  playbackBufferMs: number;
  plan: LoadPlan;
  slos: Slo[];
  /** `auto`, or the id of the one normalizer every input is scored with. */
  normalizer: NormalizerChoice;
  /** Sessions per benchmark, when given (else one per sample, at least one per lane). */
  maxSessions?: number;
  maxSeconds?: number;
  duration?: number;
  rampUpMs: number;
  stopOnErrorRate?: ErrorRateStop;
  maxErrors?: number;
  turnsPerSession: number;
  padding: Padding;
  idleMs: number;
  updateAtMs?: number;
  eos: EosPreference;
  chunkMs: number;
  pace: Pace;
  ackWindowMs: number;
  maskFrames: boolean;
  waitForAnswer: boolean;
  bargeInAtMs?: number;
  waitAudio: WaitAudio;
  timeouts: StageTimeouts;
  caps: SessionCaps;
  workers: number;
  shard?: Shard;
  /** Headers every connection sends (authentication). */
  headers: Record<string, string>;
  /** TLS options for `wss://` and `https://` targets. */
  tls: { ca?: string; rejectUnauthorized?: false };
  /** HTTP dialects: re-encode each recording for upload; undefined sends the dataset's own file. */
  uploadFormat?: UploadFormat;
}

/** The model each dialect names when none is given (the built-in server serves it). */
export const DEFAULT_MODELS = Object.fromEntries(PROTOCOLS.map((p) => [p, descriptorOf(p).defaultModel])) as Record<Protocol, string>;

export function resolveSettings(options: RunOptions): Settings {
  const protocol = options.protocol ?? 'vllm';
  if (!PROTOCOLS.includes(protocol)) {
    throw new UsageError(`--protocol ${protocol} is not supported; choose one of: ${PROTOCOLS.join(', ')}`);
  }
  const http = isHttpProtocol(protocol);
  if (options.target !== undefined) {
    let url: URL;
    try {
      url = new URL(options.target);
    } catch {
      // Not echoed: a URL that does not parse cannot be redacted, and may hold a key.
      throw new UsageError('--target is not a URL; give one like ws://localhost:8000/v1/realtime');
    }
    if (http ? url.protocol !== 'http:' && url.protocol !== 'https:' : url.protocol !== 'ws:' && url.protocol !== 'wss:') {
      throw new UsageError(`--target must be ${http ? "an http:// or https:// URL (the server's origin, e.g. http://localhost:8000)" : 'a ws:// or wss:// URL'} for --protocol ${protocol}, got ${url.protocol}//`);
    }
    if (url.hash) throw new UsageError(`--target cannot have a #fragment (${url.hash}); ${http ? 'HTTP requests' : 'WebSocket URLs'} do not carry one`);
    if (options.model === undefined) throw new UsageError('--model is required with --target: name the model the server serves');
  }
  const turnDetection = options.turnDetection ?? { type: 'none' };
  if (protocol === 'vllm' && turnDetection.type !== 'none') {
    throw new UsageError("--turn-detection needs --protocol openai or openai-beta; vLLM's /v1/realtime has no server VAD (the client commits)");
  }
  if (http && turnDetection.type !== 'none') throw new UsageError(`--turn-detection needs --protocol openai or openai-beta; --protocol ${protocol} sends each input in one request`);
  const batch = DIALECTS[protocol] === 'batch_stt';
  const transcription = { ...DEFAULT_TRANSCRIPTION, ...options.transcription };
  if (!batch) {
    const given = options.transcription ?? {};
    const flag = given.stream ? '--stream' : given.translate ? '--translate' : given.temperature !== undefined ? '--temperature' : given.uploadFormat !== undefined ? '--upload-format' : (given.responseFormat ?? 'json') !== 'json' ? '--response-format' : undefined;
    if (flag) throw new UsageError(`${flag} is for the batch transcription dialects (--protocol vllm-transcriptions or openai-transcriptions), not --protocol ${protocol}`);
  }
  if (!(TRANSCRIPTION_FORMATS as readonly string[]).includes(transcription.responseFormat)) {
    throw new UsageError(`--response-format ${transcription.responseFormat} is not a transcript format; choose one of: ${TRANSCRIPTION_FORMATS.join(', ')}`);
  }
  if (transcription.stream && transcription.responseFormat !== 'json') {
    throw new UsageError(`--response-format ${transcription.responseFormat} is for answers that are not streamed; --stream answers with events (leave --response-format at json)`);
  }
  if (transcription.temperature !== undefined) nonNegative('--temperature', transcription.temperature);
  const plan = resolvePlan(options);
  const task = DIALECTS[protocol];
  const slos = (options.slos ?? []).map((text) => {
    let slo: Slo;
    try {
      slo = parseSlo(text);
    } catch (err) {
      throw new UsageError(`--slo ${(err as SloError).message}`);
    }
    // A metric of another task has no values here, so the SLO could only fail.
    const { aggregate } = slo;
    if (aggregate.stat !== 'error_rate' && !metricsFor(task).some((m) => m.name === aggregate.metric)) {
      throw new UsageError(`--slo "${text}": ${aggregate.metric} is not a metric of --protocol ${protocol} (task ${task}); its metrics: ${metricsFor(task).map((m) => m.name).join(', ')}`);
    }
    return slo;
  });
  if (plan.kind === 'capacity' && slos.length === 0) throw new UsageError('--profile capacity needs at least one --slo to search against, e.g. --slo "p95(ttft_ms)<800"');
  if (options.rampUpMs !== undefined) nonNegative('--ramp-up-s', options.rampUpMs);
  for (const [flag, exclusion] of [['--warmup', options.window?.warmup], ['--cooldown', options.window?.cooldown]] as const) {
    if (exclusion) nonNegative(flag, 'sessions' in exclusion ? exclusion.sessions : exclusion.ms);
  }
  if (options.stopOnErrorRate) {
    const { maxErrorRate, minSessions } = options.stopOnErrorRate;
    if (!(maxErrorRate >= 0 && maxErrorRate <= 1)) throw new UsageError(`--max-error-rate must be from 0 to 1, got ${maxErrorRate}`);
    positive('--error-min-sessions', minSessions, true);
  }
  if (options.maxErrors !== undefined) positive('--max-errors', options.maxErrors, true);
  const chunkMs = options.chunkMs ?? 100;
  positive('--chunk-ms', chunkMs, false);
  const turnsPerSession = options.turnsPerSession ?? 1;
  positive('--turns-per-session', turnsPerSession, true);
  if (options.maxSessions !== undefined) {
    positive('--max-sessions', options.maxSessions, true);
    const left = measuredLeft(options.window ?? {}, options.maxSessions);
    if (left <= 0) throw new UsageError(`--warmup and --cooldown leave out every one of --max-sessions ${options.maxSessions}: nothing would be measured; leave out fewer sessions or run more`);
  }
  if (options.maxSeconds !== undefined) {
    positive('--max-seconds', options.maxSeconds, false);
    timerLimit('--max-seconds', options.maxSeconds * 1000, 's');
  }
  if (options.duration !== undefined) {
    positive('--duration', options.duration, false);
    timerLimit('--duration', options.duration * 1000, 's');
  }
  const padding = { ...NO_PADDING, ...options.padding };
  nonNegative('--lead-silence-ms', padding.leadMs);
  nonNegative('--trail-silence-ms', padding.trailMs);
  nonNegative('--turn-gap-ms', padding.gapMs);
  nonNegative('--idle-ms', options.idleMs ?? 0);
  if (options.updateAtMs !== undefined) nonNegative('--update-at-ms', options.updateAtMs);
  if (options.ackWindowMs !== undefined) nonNegative('--ack-window-ms', options.ackWindowMs);
  if (options.bargeInAtMs !== undefined) {
    nonNegative('--barge-in-at-ms', options.bargeInAtMs);
    if (task !== 's2s' || turnDetection.type === 'none') throw new UsageError('--barge-in-at-ms needs a speech-to-speech --protocol with --turn-detection server_vad or semantic_vad: the server must hear the user speak over its answer');
    if (turnsPerSession < 2) throw new UsageError('--barge-in-at-ms needs --turns-per-session 2 or more: each later utterance is the one spoken over an answer');
    if (options.waitForAnswer) throw new UsageError('--barge-in-at-ms and --wait-for-answer exclude each other: one speaks over the answer, the other waits for its end');
  }
  if (options.waitAudio !== undefined) {
    if (!WAIT_AUDIO.includes(options.waitAudio)) throw new UsageError(`--wait-audio must be ${WAIT_AUDIO.join(' or ')}, got "${options.waitAudio}"`);
    if (!options.waitForAnswer && options.bargeInAtMs === undefined) throw new UsageError('--wait-audio applies only while the client waits between utterances: give --wait-for-answer or --barge-in-at-ms');
  }
  if (options.pricing) {
    nonNegative('--cost-per-hour', options.pricing.perReplicaHour);
    positive('--replicas', options.pricing.replicas, true);
  }
  const workers = options.workers ?? 1;
  positive('--workers', workers, true);
  if (options.shard) checkShard(options, workers, plan);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  positive('--connect-timeout-ms', timeouts.connectMs, false);
  positive('--ready-timeout-ms', timeouts.readyMs, false);
  positive('--final-timeout-ms', timeouts.finalMs, false);
  for (const [flag, ms] of [['--connect-timeout-ms', timeouts.connectMs], ['--ready-timeout-ms', timeouts.readyMs], ['--final-timeout-ms', timeouts.finalMs], ['--idle-ms', options.idleMs ?? 0], ['--update-at-ms', options.updateAtMs ?? 0]] as const) {
    timerLimit(flag, ms, 'ms');
  }
  if (options.rampUpMs !== undefined) timerLimit('--ramp-up-s', options.rampUpMs, 's');
  const caps = { ...DEFAULT_SESSION_CAPS, ...options.caps };
  positive('--max-session-events', caps.maxEvents, true);
  positive('--max-session-mb', caps.maxBytes / 1024 / 1024, false);
  const speaking = checkSpeech(options, protocol, turnsPerSession);
  const model = options.model ?? DEFAULT_MODELS[protocol];
  const { uploadFormat, ...requestOptions } = transcription;
  return {
    protocol,
    model,
    dialect: {
      model,
      turnDetection,
      speech: resolveSpeech(model, options),
      ...(options.language !== undefined ? { language: options.language } : {}),
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
      ...(batch ? { transcription: requestOptions } : {}),
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    },
    quality: resolveQuality(options.quality ?? {}),
    turnDetection,
    ...speaking,
    plan,
    slos,
    normalizer: normalizerOption(options.normalizer),
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
    ...(options.maxSeconds !== undefined ? { maxSeconds: options.maxSeconds } : {}),
    ...(options.duration !== undefined ? { duration: options.duration } : {}),
    rampUpMs: options.rampUpMs ?? 0,
    ...(options.stopOnErrorRate ? { stopOnErrorRate: options.stopOnErrorRate } : {}),
    ...(options.maxErrors !== undefined ? { maxErrors: options.maxErrors } : {}),
    turnsPerSession,
    padding,
    idleMs: options.idleMs ?? 0,
    ...(options.updateAtMs !== undefined ? { updateAtMs: options.updateAtMs } : {}),
    eos: options.eos ?? 'auto',
    chunkMs,
    pace: options.pace ?? { kind: 'realtime', speed: 1 },
    ackWindowMs: options.ackWindowMs ?? DEFAULT_ACK_WINDOW_MS,
    maskFrames: options.maskFrames ?? false,
    waitForAnswer: options.waitForAnswer ?? false,
    waitAudio: options.waitAudio ?? 'silence',
    ...(options.bargeInAtMs !== undefined ? { bargeInAtMs: options.bargeInAtMs } : {}),
    timeouts,
    caps,
    workers,
    ...(options.shard ? { shard: options.shard } : {}),
    headers: options.apiKey ? authHeaders(descriptorOf(protocol).auth, options.apiKey) : {},
    tls: {
      ...(options.tls?.ca !== undefined ? { ca: options.tls.ca } : {}),
      ...(options.tls?.insecure ? { rejectUnauthorized: false as const } : {}),
    },
    ...(uploadFormat !== undefined ? { uploadFormat } : {}),
  };
}

/** `--normalizer`: auto, or a normalizer's name or id (its id is what reports record). */
export function normalizerOption(text: string | undefined): NormalizerChoice {
  const choice = normalizerChoice(text ?? 'auto');
  if (choice === undefined) throw new UsageError(`--normalizer ${text} is not a normalizer; choose auto or one of: ${NORMALIZER_NAMES}`);
  return choice;
}

/** The speech-generation settings, checked: text delivery and the player's buffer, and what a dialect cannot do. */
function checkSpeech(options: RunOptions, protocol: Protocol, turnsPerSession: number): Pick<Settings, 'speaks' | 'textDelivery' | 'playbackBufferMs'> {
  const task = DIALECTS[protocol] as Task;
  const speaks = isSpeechTask(task);
  const textDelivery = options.textDelivery ?? { kind: 'all' };
  if (textDelivery.kind === 'stream') {
    if (!speaks) throw new UsageError(`--text-rate streams text into speech generation; --protocol ${protocol} sends audio`);
    positive('--text-rate', textDelivery.tokensPerS, false);
    nonNegative('--text-first-token-ms', textDelivery.firstTokenMs);
  }
  if (textDelivery.kind === 'stream' && isHttpProtocol(protocol)) throw new UsageError(`--text-rate streams text into WebSocket dialects; --protocol ${protocol} sends each text in one request`);
  if (options.speech?.voice !== undefined && !speaks) throw new UsageError(`--voice is for speech generation; --protocol ${protocol} sends audio`);
  if (options.speech?.responseFormat !== undefined && !speaks) {
    throw new UsageError(`--response-format is for speech generation and batch transcription; --protocol ${protocol} streams audio`);
  }
  const playbackBufferMs = options.playbackBufferMs ?? DEFAULT_PLAYBACK_BUFFER_MS;
  nonNegative('--playback-buffer-ms', playbackBufferMs);
  const { limits } = descriptorOf(protocol);
  if (limits?.oneInputPerSession !== undefined && turnsPerSession > 1) {
    throw new UsageError(`--protocol ${protocol} takes one input per session${limits.oneInputPerSession}; leave --turns-per-session at 1`);
  }
  const outputRate = options.speech?.outputRate;
  if (limits?.outputRate !== undefined && outputRate !== undefined && outputRate !== limits.outputRate) {
    throw new UsageError(`--protocol ${protocol} speaks PCM16 at ${limits.outputRate} Hz only; leave --output-rate at ${limits.outputRate}`);
  }
  return { speaks, textDelivery, playbackBufferMs };
}

const STREAMED_FORMATS = ['pcm', 'wav'];

function resolveQuality(quality: QualityOptions): QualitySettings {
  const sessions = quality.sessions ?? 20;
  if (!(Number.isInteger(sessions) && sessions >= 0)) throw new UsageError(`--quality-sessions must be a whole number, 0 or more, got ${sessions}`);
  const keepAudioMb = quality.keepAudioMb ?? 16;
  positive('--keep-audio-mb', keepAudioMb, false);
  const protocol = quality.asrProtocol ?? 'vllm';
  const transcribes = (p: Protocol): boolean => (['stt', 'batch_stt'] as string[]).includes(DIALECTS[p]);
  if (!PROTOCOLS.includes(protocol) || !transcribes(protocol)) {
    throw new UsageError(`--asr-protocol ${protocol} does not transcribe; choose one of: ${PROTOCOLS.filter(transcribes).join(', ')}`);
  }
  if (quality.asrTarget !== undefined) {
    let url: URL;
    try {
      url = new URL(quality.asrTarget);
    } catch {
      throw new UsageError('--asr-target is not a URL; give one like ws://localhost:8000/v1/realtime');
    }
    const http = isHttpProtocol(protocol);
    if (http ? url.protocol !== 'http:' && url.protocol !== 'https:' : url.protocol !== 'ws:' && url.protocol !== 'wss:') {
      throw new UsageError(`--asr-target must be ${http ? 'an http:// or https://' : 'a ws:// or wss://'} URL for --asr-protocol ${protocol}, got ${url.protocol}//`);
    }
    if (quality.asrModel === undefined) throw new UsageError('--asr-model is required with --asr-target: name the model the transcription server serves');
  }
  return {
    sessions,
    keepAudioBytes: Math.round(keepAudioMb * 1024 * 1024),
    asr: {
      protocol,
      model: quality.asrModel ?? DEFAULT_MODELS[protocol],
      ...(quality.asrTarget !== undefined ? { target: quality.asrTarget } : {}),
      ...(quality.asrApiKey !== undefined ? { apiKey: quality.asrApiKey } : {}),
    },
  };
}

function resolveSpeech(model: string, options: RunOptions): SpeechSettings {
  const speech = options.speech ?? {};
  const streamFormat = speech.streamFormat ?? 'audio';
  if (!STREAM_FORMATS.includes(streamFormat)) throw new UsageError(`--stream-format ${streamFormat} is not one of: ${STREAM_FORMATS.join(', ')}`);
  const responseFormat = speech.responseFormat ?? 'pcm';
  if (!/^[a-z0-9_]+$/.test(responseFormat)) throw new UsageError(`--response-format ${responseFormat} is not a format name (pcm, wav, mp3, flac, opus, ...)`);
  if (streamFormat !== 'none' && !STREAMED_FORMATS.includes(responseFormat)) {
    throw new UsageError(`--response-format ${responseFormat} cannot be streamed: use pcm or wav, or --stream-format none for one body`);
  }
  const outputRate = speech.outputRate ?? 24_000;
  positive('--output-rate', outputRate, true);
  return {
    model,
    responseFormat,
    streamFormat,
    outputRate,
    ...(speech.voice !== undefined ? { voice: speech.voice } : {}),
    ...(options.language !== undefined ? { language: options.language } : {}),
    ...(speech.instructions !== undefined ? { instructions: speech.instructions } : {}),
  };
}

function resolvePlan(options: RunOptions): LoadPlan {
  const given = [options.profile, options.sweep, options.capacity].filter((x) => x !== undefined).length;
  if (given > 1) throw new UsageError('choose one of a profile, a sweep (--profile sweep) or a capacity search (--profile capacity)');
  if (options.sweep) {
    if (options.sweep.length === 0) throw new UsageError('--profile sweep needs --concurrency with a list of levels, e.g. 1,2,4,8');
    for (const level of options.sweep) positive('--concurrency', level, true);
    return { kind: 'sweep', levels: options.sweep };
  }
  if (options.capacity) {
    const { by } = options.capacity;
    const integer = by === 'concurrency';
    const search = {
      start: options.capacity.start ?? 1,
      max: options.capacity.max ?? (integer ? 256 : 1000),
      integer,
      tolerance: options.capacity.tolerance ?? 0.1,
    };
    positive(integer ? '--concurrency' : '--rate', search.start, integer);
    positive('--capacity-max', search.max, integer);
    if (search.max < search.start) throw new UsageError(`--capacity-max (${search.max}) is below the start level (${search.start})`);
    positive('--capacity-tolerance', search.tolerance, false);
    if (options.capacity.maxOpen !== undefined) positive('--max-open', options.capacity.maxOpen, true);
    return {
      kind: 'capacity',
      by,
      search,
      seed: options.capacity.seed ?? 1,
      ...(options.capacity.maxOpen !== undefined ? { maxOpen: options.capacity.maxOpen } : {}),
    };
  }
  const profile = options.profile ?? { kind: 'synchronous' };
  if (profile.kind === 'concurrent') positive('--concurrency', profile.concurrency, true);
  if (isOpenLoop(profile)) {
    positive('--rate', profile.rate, false);
    if (profile.maxOpen !== undefined) positive('--max-open', profile.maxOpen, true);
  }
  return { kind: 'single', profile };
}

function checkShard({ shard, runId, resume }: RunOptions, workers: number, plan: LoadPlan): void {
  const { index, count } = shard!;
  positive('--shards', count, true);
  if (!Number.isInteger(index) || index < 0 || index >= count) throw new UsageError(`--shard ${index}/${count}: the shard index counts from 0, so it must be a whole number from 0 to ${count - 1}`);
  if (!runId && resume === undefined) throw new UsageError('a sharded run needs --run-id (or VOXBENCH_RUN_ID), the same for every shard, so that report merge joins their reports as one run');
  if (workers > 1) throw new UsageError('--shard and --workers > 1 do not combine: run more shards instead, one per core');
  if (plan.kind === 'capacity') throw new UsageError('--profile capacity cannot be sharded: each shard would judge the SLOs on its own share and choose its own next level; shard a sweep or one level instead');
}

/** Sessions a window counted in sessions leaves to measure of `maxSessions` (windows in seconds count none). */
function measuredLeft(window: MeasurementWindow, maxSessions: number): number {
  const count = (exclusion: MeasurementWindow['warmup']): number => (exclusion && 'sessions' in exclusion ? exclusion.sessions : 0);
  return maxSessions - count(window.warmup) - count(window.cooldown);
}

function positive(flag: string, value: number, integer: boolean): void {
  if (!(value > 0) || (integer && !Number.isInteger(value))) {
    throw new UsageError(`${flag} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`);
  }
}

/** The longest wait a Node.js timer can hold (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function timerLimit(flag: string, ms: number, unit: 's' | 'ms'): void {
  if (ms > MAX_TIMER_MS) {
    const most = unit === 's' ? `${Math.floor(MAX_TIMER_MS / 1000)} s` : `${MAX_TIMER_MS} ms`;
    throw new UsageError(`${flag} is at most ${most} (about 24 days), got ${unit === 's' ? ms / 1000 : ms}`);
  }
}

function nonNegative(flag: string, value: number): void {
  if (!(value >= 0)) throw new UsageError(`${flag} must be zero or more, got ${value}`);
}
