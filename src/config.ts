import { PROTOCOLS, type Protocol } from './adapters/index.js';
import { DEFAULT_OPENAI_MODEL, type OpenAITurnDetection } from './adapters/openai.js';
import type { SessionRecord } from './timeline/types.js';
import type { LoadProfile } from './load/profiles.js';
import { DEFAULT_MODEL, type ServerOptions } from './server/server.js';
import type { Pace } from './session/pace.js';
import { NO_PADDING, type EosPreference, type Padding } from './session/prepare.js';
import { DEFAULT_TIMEOUTS, type StageTimeouts } from './session/run-session.js';

export interface RunOptions {
  /** WebSocket URL of the server; omitted, the built-in simulated server is started on loopback. */
  target?: string;
  /** Wire dialect. Default `vllm`. */
  protocol?: Protocol;
  /** The model: named in vLLM's `session.update`, or OpenAI's transcription model. Required with `target`. */
  model?: string;
  /** Transcription language and prompt (OpenAI dialects). */
  language?: string;
  prompt?: string;
  /** OpenAI dialects: who ends turns. Default `none` (the client commits each turn). */
  turnDetection?: OpenAITurnDetection;
  /** Folder of WAV files with same-named `.txt` transcripts; default the bundled samples. */
  data?: string;
  profile?: LoadProfile;
  /** Sessions to run; default enough to stream every sample once (at least one per lane). */
  maxSessions?: number;
  maxSeconds?: number;
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
  timeouts?: Partial<StageTimeouts>;
  /** Sent as `Authorization: Bearer`; never written to reports. */
  apiKey?: string;
  /** TLS for `wss://` targets: extra trusted CA certificates (PEM), or no verification at all. */
  tls?: { ca?: string; insecure?: boolean };
  /** Where `report.json` goes; omitted, nothing is written. */
  outputDir?: string;
  /** Settings of the built-in server, when there is no `target`. */
  server?: Partial<ServerOptions>;
  /** Aborting stops the run; what finished is kept and the report is marked. */
  signal?: AbortSignal;
  onSessionEnd?(record: SessionRecord, done: number, expected: number): void;
}

/** Invalid options or input; the message says which and what to do. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Options with defaults applied and every value checked. */
export interface Settings {
  protocol: Protocol;
  model: string;
  turnDetection: OpenAITurnDetection;
  profile: LoadProfile;
  lanes: number;
  turnsPerSession: number;
  padding: Padding;
  idleMs: number;
  eos: EosPreference;
  chunkMs: number;
  pace: Pace;
  timeouts: StageTimeouts;
}

export function resolveSettings(options: RunOptions): Settings {
  const protocol = options.protocol ?? 'vllm';
  if (!PROTOCOLS.includes(protocol)) {
    throw new UsageError(`--protocol ${protocol} is not supported; choose one of: ${PROTOCOLS.join(', ')}`);
  }
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
  const turnDetection = options.turnDetection ?? { type: 'none' };
  if (protocol === 'vllm' && turnDetection.type !== 'none') {
    throw new UsageError("--turn-detection needs --protocol openai or openai-beta; vLLM's /v1/realtime has no server VAD (the client commits)");
  }
  const profile = options.profile ?? { kind: 'synchronous' };
  const lanes = profile.kind === 'concurrent' ? profile.concurrency : 1;
  positive('--concurrency', lanes, true);
  const chunkMs = options.chunkMs ?? 100;
  positive('--chunk-ms', chunkMs, false);
  const turnsPerSession = options.turnsPerSession ?? 1;
  positive('--turns-per-session', turnsPerSession, true);
  if (options.maxSessions !== undefined) positive('--max-sessions', options.maxSessions, true);
  if (options.maxSeconds !== undefined) positive('--max-seconds', options.maxSeconds, false);
  const padding = { ...NO_PADDING, ...options.padding };
  nonNegative('--lead-silence-ms', padding.leadMs);
  nonNegative('--trail-silence-ms', padding.trailMs);
  nonNegative('--turn-gap-ms', padding.gapMs);
  nonNegative('--idle-ms', options.idleMs ?? 0);
  if (options.updateAtMs !== undefined) nonNegative('--update-at-ms', options.updateAtMs);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  positive('--connect-timeout-ms', timeouts.connectMs, false);
  positive('--ready-timeout-ms', timeouts.readyMs, false);
  positive('--final-timeout-ms', timeouts.finalMs, false);
  return {
    protocol,
    model: options.model ?? (protocol === 'vllm' ? DEFAULT_MODEL : DEFAULT_OPENAI_MODEL),
    turnDetection,
    profile,
    lanes,
    turnsPerSession,
    padding,
    idleMs: options.idleMs ?? 0,
    eos: options.eos ?? 'auto',
    chunkMs,
    pace: options.pace ?? { kind: 'realtime', speed: 1 },
    timeouts,
  };
}

function positive(flag: string, value: number, integer: boolean): void {
  if (!(value > 0) || (integer && !Number.isInteger(value))) {
    throw new UsageError(`${flag} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`);
  }
}

function nonNegative(flag: string, value: number): void {
  if (!(value >= 0)) throw new UsageError(`${flag} must be zero or more, got ${value}`);
}
