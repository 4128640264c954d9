import { keyNote } from './api-key.js';
import { normalizerOption } from './normalizer-option.js';
import { diarizationRulesOption } from './diarization-rules.js';
import type { DiarizationRules } from '../metrics/diarization/rules.js';
import { specOf, type DialectSettings, type Protocol } from '../dialects/index.js';
import { authHeaders } from '../dialects/spec.js';
import type { OpenAITurnDetection } from '../dialects/realtime-common.js';
import type { ErrorRateStop } from '../load/error-stop.js';
import type { LoadPlan } from '../load/plan.js';
import { metricsFor } from '../metrics/catalog.js';
import type { NormalizerChoice } from '../metrics/normalizers/index.js';
import { parseSlo, SloError, type Slo } from '../metrics/slo.js';
import type { Pace } from '../session/pace.js';
import type { UploadFormat } from '../session/prepare-request.js';
import type { TextDelivery } from '../session/prepare-text.js';
import { NO_PADDING, type EosPreference, type Padding } from '../session/prepare.js';
import { DEFAULT_TIMEOUTS, type StageTimeouts } from '../session/runner.js';
import { DEFAULT_ACK_WINDOW_MS } from '../session/ws-runner.js';
import { DEFAULT_SESSION_CAPS, type SessionCaps } from '../session/session-caps.js';
import type { Task } from '../timeline/types.js';
import { nonNegative, positive, timerLimit } from './checks.js';
import {
  checkProtocol,
  checkSending,
  checkSpeech,
  checkTranscription,
  DEFAULT_MODELS,
  resolveQuality,
  resolveSpeech,
  type QualitySettings,
} from './dialect-rules.js';
import { option, optionsError, UsageError } from './errors.js';
import { checkScrape, type ScrapeSettings } from './scrape-rules.js';
import { checkLength, checkShard, checkStops, resolvePlan } from './load-plan.js';
import { WAIT_AUDIO, type RunOptions, type Shard, type WaitAudio } from './options.js';

export { UsageError, type QualitySettings, type RunOptions };

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
  /** The rules speaker attribution is scored by. */
  diarizationRules: DiarizationRules;
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
  /** What a refusal for authentication adds: the key sent, by its source, or that none was, and where the dialect looks. */
  keyNote: string;
  /** TLS options for `wss://` and `https://` targets. */
  tls: { ca?: string; rejectUnauthorized?: false };
  /** HTTP dialects: re-encode each recording for upload; undefined sends the dataset's own file. */
  uploadFormat?: UploadFormat;
  scrape?: ScrapeSettings;
}

export { DEFAULT_MODELS };

/** `options` checked, in the order a reader meets them (the dialect, the load, each session), with the defaults applied. */
export function resolveSettings(options: RunOptions): Settings {
  const { protocol, turnDetection } = checkProtocol(options);
  const { uploadFormat, ...requestOptions } = checkTranscription(options, protocol);
  const plan = resolvePlan(options);
  const task = specOf(protocol).task;
  const slos = checkSlos(options.slos ?? [], protocol, task);
  if (plan.kind === 'capacity' && slos.length === 0)
    throw optionsError`${option('capacity')} needs at least one ${option('slos')} to search against, e.g. ${option('slos: ["p95(ttft_ms)<800"]', 'slos.example')}`;
  checkStops(options);
  const chunkMs = options.chunkMs ?? 100;
  positive(option('chunkMs'), chunkMs, false);
  const chunkLimit = specOf(protocol).limits?.chunkMs;
  if (chunkLimit && !(chunkMs >= chunkLimit.min && chunkMs <= chunkLimit.max))
    throw optionsError`${option('chunkMs')} ${chunkMs} is outside the ${chunkLimit.min}-${chunkLimit.max} ms ${option('protocol')} ${protocol} takes per message${chunkLimit.why}; choose a value in that range`;
  const turnsPerSession = options.turnsPerSession ?? 1;
  const turns = option('turnsPerSession');
  positive(turns, turnsPerSession, true);
  checkLength(options);
  const padding = { ...NO_PADDING, ...options.padding };
  nonNegative(option('padding.leadMs'), padding.leadMs);
  nonNegative(option('padding.trailMs'), padding.trailMs);
  nonNegative(option('padding.gapMs'), padding.gapMs);
  nonNegative(option('idleMs'), options.idleMs ?? 0);
  if (options.updateAtMs !== undefined) nonNegative(option('updateAtMs'), options.updateAtMs);
  if (options.ackWindowMs !== undefined) nonNegative(option('ackWindowMs'), options.ackWindowMs);
  if (options.maxDelayMs !== undefined) positive(option('maxDelayMs'), options.maxDelayMs, false);
  checkWaits(options, task, turnDetection, turnsPerSession);
  if (options.pricing) {
    nonNegative(option('pricing.perReplicaHour'), options.pricing.perReplicaHour);
    positive(option('pricing.replicas'), options.pricing.replicas, true);
  }
  const workers = options.workers ?? 1;
  positive(option('workers'), workers, true);
  if (options.shard) checkShard(options, workers, plan);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const stages = [
    [option('timeouts.connectMs'), timeouts.connectMs],
    [option('timeouts.readyMs'), timeouts.readyMs],
    [option('timeouts.finalMs'), timeouts.finalMs],
  ] as const;
  for (const [name, ms] of stages) positive(name, ms, false);
  for (const [name, ms] of [...stages, [option('idleMs'), options.idleMs ?? 0], [option('updateAtMs'), options.updateAtMs ?? 0]] as const)
    timerLimit(name, ms, 'ms');
  if (options.rampUpMs !== undefined) timerLimit(option('rampUpMs'), options.rampUpMs, 's');
  const caps = { ...DEFAULT_SESSION_CAPS, ...options.caps };
  positive(option('caps.maxEvents'), caps.maxEvents, true);
  positive(option('caps.maxBytes in MiB', 'caps.maxBytes'), caps.maxBytes / 1024 / 1024, false);
  const speaking = checkSpeech(options, protocol, turnsPerSession);
  checkSending(options, protocol, speaking.textDelivery);
  const model = options.model ?? DEFAULT_MODELS[protocol];
  return {
    protocol,
    model,
    dialect: {
      model,
      turnDetection,
      speech: resolveSpeech(model, options),
      ...(options.language !== undefined ? { language: options.language } : {}),
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
      ...(options.maxDelayMs !== undefined ? { maxDelayMs: options.maxDelayMs } : {}),
      ...(task === 'batch_stt' ? { transcription: requestOptions } : {}),
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    },
    quality: resolveQuality(options.quality ?? {}),
    turnDetection,
    ...speaking,
    plan,
    slos,
    normalizer: normalizerOption(options.normalizer),
    diarizationRules: diarizationRulesOption(options.diarization),
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
    headers: options.apiKey ? authHeaders(specOf(protocol).auth, options.apiKey) : {},
    keyNote: keyNote(protocol, options.apiKey ? (options.apiKeySource ?? 'the apiKey option') : undefined),
    tls: {
      ...(options.tls?.ca !== undefined ? { ca: options.tls.ca } : {}),
      ...(options.tls?.insecure ? { rejectUnauthorized: false as const } : {}),
    },
    ...(uploadFormat !== undefined ? { uploadFormat } : {}),
    ...(options.scrape ? { scrape: checkScrape(options.scrape, options.pricing !== undefined) } : {}),
  };
}

/** SLO expressions, parsed; each names a metric the dialect's task has (another task's could only fail). */
function checkSlos(texts: readonly string[], protocol: Protocol, task: Task): Slo[] {
  const name = option('slos');
  return texts.map((text) => {
    let slo: Slo;
    try {
      slo = parseSlo(text);
    } catch (err) {
      throw optionsError`${name} ${(err as SloError).message}`;
    }
    const { aggregate } = slo;
    if (aggregate.stat !== 'error_rate' && !metricsFor(task).some((m) => m.name === aggregate.metric)) {
      throw optionsError`${name} "${text}": ${aggregate.metric} is not a metric of ${option('protocol')} ${protocol} (task ${task}); its metrics: ${metricsFor(
        task,
      )
        .map((m) => m.name)
        .join(', ')}`;
    }
    return slo;
  });
}

/** What the client does between utterances: speak over the answer, wait for it, and what it streams meanwhile. */
function checkWaits(options: RunOptions, task: Task, turnDetection: OpenAITurnDetection, turnsPerSession: number): void {
  const bargeIn = option('bargeInAtMs');
  const waitForAnswer = option('waitForAnswer');
  if (options.bargeInAtMs !== undefined) {
    nonNegative(bargeIn, options.bargeInAtMs);
    if (task !== 's2s' || turnDetection.type === 'none')
      throw optionsError`${bargeIn} needs a speech-to-speech ${option('protocol')} with ${option('turnDetection')} server_vad or semantic_vad: the server must hear the user speak over its answer`;
    if (turnsPerSession < 2) throw optionsError`${bargeIn} needs ${option('turnsPerSession')} 2 or more: each later utterance is the one spoken over an answer`;
    if (options.waitForAnswer) throw optionsError`${bargeIn} and ${waitForAnswer} exclude each other: one speaks over the answer, the other waits for its end`;
  }
  if (options.waitAudio !== undefined) {
    const waitAudio = option('waitAudio');
    if (!WAIT_AUDIO.includes(options.waitAudio)) throw optionsError`${waitAudio} must be ${WAIT_AUDIO.join(' or ')}, got "${options.waitAudio}"`;
    if (!options.waitForAnswer && options.bargeInAtMs === undefined)
      throw optionsError`${waitAudio} applies only while the client waits between utterances: give ${waitForAnswer} or ${bargeIn}`;
  }
}
