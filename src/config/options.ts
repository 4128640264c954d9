import type { DiarizationOptions } from './diarization-rules.js';
import type { Protocol } from '../dialects/index.js';
import type { StreamFormat } from '../dialects/speech-http.js';
import type { OpenAITurnDetection } from '../dialects/realtime-common.js';
import type { TranscriptionOptions } from '../dialects/transcriptions/client.js';
import type { DatasetOptions } from '../data/load.js';
import type { ErrorRateStop } from '../load/error-stop.js';
import type { LoadProfile } from '../load/profiles.js';
import type { ReplayOptions } from '../load/replay.js';
import type { ShapeHeader, ShapeSession } from '../load/traffic-shape.js';
import type { MeasurementWindow } from '../metrics/window.js';
import type { Pricing } from '../metrics/cost.js';
import type { OutputFormat } from '../report/output-formats.js';
import type { ConfigFileRecord, Meta, RunConfig } from '../report/schema.js';
import type { ServerOptions } from '../server/server.js';
import type { Pace } from '../session/pace.js';
import type { UploadFormat } from '../session/prepare-request.js';
import type { TextDelivery } from '../session/prepare-text.js';
import type { EosPreference, Padding } from '../session/prepare.js';
import type { StageTimeouts } from '../session/runner.js';
import type { SessionCaps } from '../session/session-caps.js';
import type { SessionRecord } from '../timeline/types.js';

/** What a library caller gives `run`; `settings.ts` checks it and applies the defaults. */

/** What the client streams while it waits between utterances: silence, as a live microphone does, or nothing (a paused stream). */
export const WAIT_AUDIO = ['silence', 'pause'] as const;
export type WaitAudio = (typeof WAIT_AUDIO)[number];

export interface RunOptions {
  /** WebSocket URL of the server; omitted, the built-in simulated server is started on loopback. */
  target?: string;
  /** Wire dialect. Default: the registry's first (`DEFAULT_PROTOCOL`). */
  protocol?: Protocol;
  /** The model: named in vLLM's `session.update`, or OpenAI's transcription model. Required with `target`. */
  model?: string;
  /** Transcription language and prompt (OpenAI and batch dialects). */
  language?: string;
  prompt?: string;
  /** Streaming transcription: the longest the server may hold a word before its final, ms (Speechmatics' `max_delay`); unset, the server's default. */
  maxDelayMs?: number;
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
  /** The dataset: a folder of audio files, a JSONL manifest, Parquet shards, a save_to_disk folder or a Hub dataset (`hf:<owner>/<name>`); default the bundled samples. */
  data?: string;
  /** Which samples of the dataset, in which order, and how to read its columns. */
  dataset?: DatasetOptions;
  /** Where prepared audio is kept between runs (`--cache-dir`; Hub downloads in its `hub` folder), or false for nowhere (`--no-cache`); default `$XDG_CACHE_HOME/voxbench/audio` or `~/.cache/voxbench/audio` (Hub downloads in `hub` beside it). */
  audioCache?: string | false;
  /** One benchmark under this profile (default synchronous). */
  profile?: LoadProfile;
  /** Instead: one `concurrent` benchmark per level, in order. */
  sweep?: number[];
  /** Instead: recorded traffic replayed (docs/replay.md): a traffic shape read from `file`, at a speed and scale, in windows of it (a level each). */
  replay?: { file: string; header: ShapeHeader; sessions: ShapeSession[]; windows?: Array<NonNullable<ReplayOptions['window']>> } & Partial<
    Omit<ReplayOptions, 'window'>
  >;
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
  /** Prometheus endpoints polled while the run runs: the server's, a GPU exporter's, on the run's clock. */
  scrape?: ScrapeRunOptions;
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
  /** How speaker attribution is scored (docs/diarization.md): collar, overlap, region, pairing; pyannote.metrics' defaults for what is unset. */
  diarization?: DiarizationOptions;
  /** Deployment price per replica-hour and replica count, for cost per audio hour. */
  pricing?: Pricing;
  /** User entries for the reproducibility record, by section (deployment, input, client, session, results). */
  meta?: Meta;
  /** The file the options came from (the CLI's `--config`), recorded in the report as given. */
  configFile?: ConfigFileRecord;
  /** Formats written into `outputDir` besides report.json (default: json and html). */
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
  /** Where `apiKey` came from (`--api-key`, or an environment variable's name), named when a server refuses it. Default: the apiKey option. */
  apiKeySource?: string;
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
  /** Called as a scrape fails (`scrape`): the endpoint (redacted) and why, in one line. The run goes on. */
  onScrapeFailure?(url: string, error: string): void;
  /** Called as each session ends: how many of the level's sessions are done, of how many (Infinity when only a duration bounds them), and the level. */
  onSessionEnd?(record: SessionRecord, done: number, expected: number, level: string): void;
}

export interface ScrapeRunOptions {
  /** http(s) URLs of Prometheus text endpoints, or paths (`/metrics`) on the target's host (the built-in server's, without a target). */
  urls: string[];
  /** Between two scrapes of a target, ms. Default 1000. */
  intervalMs?: number;
  /** Regular expressions: families whose names match are kept besides the defaults (vLLM's, vLLM-Omni's, DCGM's). */
  match?: string[];
  /** A scraped gauge of the replicas serving the run (a family name): cost per audio hour follows it rather than `pricing.replicas`. */
  replicasSeries?: string;
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
  /** Its dialect (a speech-to-text one). Default: `DEFAULT_PROTOCOL`. */
  asrProtocol?: Protocol;
  /** Its model. Default the dialect's own default. */
  asrModel?: string;
  /** Sent to the transcription server as `Authorization: Bearer`; never written to reports. */
  asrApiKey?: string;
  /** Received audio kept per session for the analysis, MB. Default 16. */
  keepAudioMb?: number;
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
