import type { DatasetProblem, DatasetSummary } from '../data/dataset.js';
import type { CapacityResult } from '../load/capacity.js';
import type { LoadPlan } from '../load/plan.js';
import type { LoadProfile } from '../load/profiles.js';
import type { MetricDescription } from '../metrics/catalog.js';
import type { ReplaySkip, SkipReason } from '../load/replay.js';
import type { RecordedFigures, ShapeHeader } from '../load/traffic-shape.js';
import type { BenchmarkSummary, SessionFigures, SessionMetrics } from '../metrics/compute.js';
import type { Pricing } from '../metrics/cost.js';
import type { DiarizationRecord } from '../metrics/diarization/rules.js';
import type { ClientHealth } from '../metrics/health.js';
import type { Start } from '../metrics/cold-start.js';
import type { MeasurementWindow, Phase } from '../metrics/window.js';
import type { CloseRecord, EosSource, IncompleteReason, SessionRecord, SessionTimeline, SpeechAnalysis, Task } from '../timeline/types.js';
import type { LogPlace } from './session-log.js';

/**
 * The report: one versioned document from which every output renders. `version`
 * increments whenever a change would break a reader of an older document. Version 3
 * keeps each session's figures in `report.json` and its neutral timeline in the session
 * log beside it (`sessionLog`), so a report of many sessions renders one session at a
 * time (issue 38); version 2 stored every timeline in `report.json`, and version 1
 * reports (streaming speech-to-text only) are migrated when read (`src/report/migrate.ts`).
 */
export const REPORT_SCHEMA = 'voxbench.report';
export const REPORT_VERSION = 3;

export interface Report<S extends ReportSession = ReportSession> {
  schema: typeof REPORT_SCHEMA;
  version: typeof REPORT_VERSION;
  voxbenchVersion: string;
  /** Wall-clock time of the run clock's origin; every `*Ms` time is relative to it. */
  startedAt: string;
  /** Set when the run stopped early; the report holds what was measured until then. */
  stoppedBy?: IncompleteReason;
  environment: Environment;
  config: RunConfig;
  dataset: DatasetSummary & { problems: DatasetProblem[] };
  /** The catalog the figures were computed with: renderers pick metrics from it by task and tag. */
  metricDefinitions: MetricDescription[];
  percentileMethod: string;
  /** One per load level, in the order they ran. */
  benchmarks: Array<Benchmark<S>>;
  /** Set for a capacity search: the answer, and every level probed. */
  capacity?: CapacityResult & { by: 'concurrency' | 'rate'; slos: string[] };
  /** Seed 002's record of the test, for another engineer to reproduce it. */
  record: ReproducibilityRecord;
  /** Set by `report merge`: the reports this one was merged from, in order. */
  mergedFrom?: string[];
  /** Set when the sessions were observed, not run: live traffic metered by `voxbench proxy`. */
  observed?: ObservedTraffic;
  /** Server metrics scraped while the run ran (`--scrape`), on the run's clock. */
  telemetry?: Telemetry;
  /** The session log beside `report.json` that holds every session's timeline (version 3; `sessions.jsonl`). */
  sessionLog?: string;
}

/** Prometheus endpoints polled during the run, and the series kept from them; every `tMs` is on the run's clock. */
export interface Telemetry {
  intervalMs: number;
  /** Each endpoint (credentials redacted), its scrapes and how many failed: down, slow or not the exposition format. */
  targets: Array<{ url: string; scrapes: number; failures: number; lastError?: string; droppedSeries?: number }>;
  series: TelemetrySeries[];
  /** The series of the replicas serving the run (`--replicas-series`): each level's cost is charged for them. */
  replicasSeries?: string;
  /** The families kept: the defaults of the voxbench that ran, and the `--scrape-match` expressions given. Absent in reports from before it was recorded. */
  kept?: { defaults: string[]; match: string[] };
}

/** One series: a gauge as read, a counter as its rate per second, a histogram's per-interval quantile (its `quantile` label). */
export interface TelemetrySeries {
  /** Index into `targets`. */
  target: number;
  name: string;
  labels: Record<string, string>;
  kind: 'gauge' | 'rate' | 'quantile';
  points: Array<[tMs: number, value: number]>;
  /**
   * Gauges: scrapes of its target (ms) that found the series absent next to a reading:
   * the one before it appeared (when its target had been scraped before), the one that
   * found it gone. A gauge counts only while it is scraped (`timeWeightedMean`). Absent
   * in reports from before it was recorded, and where the series never came or went.
   */
  absent?: number[];
}

/** Where live traffic was metered: every time is the proxy's, between the clients and the server. */
export interface ObservedTraffic {
  by: 'voxbench proxy';
  /** Where the proxy listened for clients, and the server it forwarded to (redacted). */
  listen: string;
  upstream: string;
  /** The proxy's position in the path, and so what its latencies include and leave out. */
  position: string;
}

export interface Environment {
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  hostname: string;
}

/** The run's settings as used, with secrets redacted. */
/** A replay of recorded traffic (docs/replay.md): what was played of the shape, what was not and why, and the recording's own figures. */
export interface ReplayConfig {
  file: string;
  source: ShapeHeader['source'];
  speed: number;
  scale: number;
  seed: number;
  /** The parts of the recording replayed, a level each, ms on its clock (toMs null: to its end); null for all of it. */
  windows: Array<{ fromMs: number; toMs: number | null }> | null;
  /** Recorded sessions in the window, and sessions played (scale copies of each playable one). */
  recorded: number;
  played: number;
  skipped: Record<SkipReason, number>;
  skippedSessions: Array<ReplaySkip & { level: string }>;
  /** Session i of the run (its `index`) plays recorded session `plays[i].session` (copy `copy` of its `scale`) in level `level`, with these samples. */
  plays: Array<{ level: string; session: number; copy: number; sampleIds: string[] }>;
  /** Per level (window), in order: what it held of the recording, and the recorded figures of the sessions it plays, to set beside its own. */
  levels: ReplayLevel[];
}

/** One replayed window: the recording's side of the comparison. */
export interface ReplayLevel {
  label: string;
  /** Recorded sessions that started in the window; sessions played (scale copies of each playable one); those not played, by reason. */
  recorded: number;
  played: number;
  skipped: Record<SkipReason, number>;
  /**
   * The recorded figures of the sessions this level plays, as measured where they were recorded
   * (`of: 'window'`); a shape extracted before sessions kept their figures has only the whole
   * recording's, by task (`of: 'recording'`); null when it has neither.
   */
  figures: (RecordedFigures & { of: 'window' | 'recording' }) | null;
}

export interface RunConfig {
  target: string;
  builtInServer: boolean;
  /** The dialect's task (`stt`, `tts`, `s2s`, `batch_stt`, `batch_tts`). */
  task: Task;
  protocol: string;
  model: string;
  language: string | null;
  prompt: string | null;
  /** Speech to speech: the agent's instructions, when given. */
  instructions?: string;
  /** Who ends turns (OpenAI dialects): the client (`none`) or the server's VAD, with its settings. */
  turnDetection:
    | { type: 'none' }
    | { type: 'server_vad'; threshold: number; prefixPaddingMs: number; silenceDurationMs: number }
    | { type: 'semantic_vad'; eagerness: 'low' | 'medium' | 'high' | 'auto' };
  data: string;
  plan: LoadPlan;
  /** Sessions per benchmark, when given. */
  maxSessions: number | null;
  maxSeconds: number | null;
  /** Each benchmark's duration, seconds (`--duration`); absent in reports from before it existed. */
  duration?: number | null;
  rampUpMs: number;
  window: MeasurementWindow;
  stopOnErrorRate: { maxErrorRate: number; minSessions: number } | null;
  /** `--max-errors`; absent when not given. */
  maxErrors?: number;
  slos: string[];
  /**
   * How transcripts were normalized for WER and CER: `auto` (whisper-english for English
   * or unlabelled inputs, whisper-basic for other languages) or one normalizer's id for
   * every input. Absent in reports from before it existed, whose inputs keep
   * voxbench-basic-2.
   */
  normalizer?: string;
  /**
   * The rules speaker attribution was scored by, in words, and the settings of
   * pyannote.metrics and dscore (md-eval) that give the same numbers. Absent in reports
   * from before it existed, which are scored by pyannote.metrics' defaults.
   */
  diarization?: DiarizationRecord;
  /** Deployment price, for cost per audio hour. */
  pricing: Pricing | null;
  /** The user's entries for the reproducibility record (`--meta`). */
  meta: Meta;
  /** The file of options the run was given (`--config`), when one was. */
  configFile?: ConfigFileRecord;
  turnsPerSession: number;
  /** Silence before and after each utterance and between turns, ms. */
  padding: { leadMs: number; trailMs: number; gapMs: number };
  idleMs: number;
  updateAtMs: number | null;
  eos: 'auto' | EosSource;
  chunkMs: number;
  pace: string;
  workers: number;
  ackWindowMs: number;
  /** Client frames masked with random keys (absent in reports from before the choice: they were). */
  maskFrames?: boolean;
  /** Server turn detection: whether each utterance's answer was awaited before the next; absent in reports from before it existed. */
  waitForAnswer?: boolean;
  /** Speech to speech: each later utterance started this long after the previous answer began to sound, when set. */
  bargeInAtMs?: number;
  /** What the client streamed while it waited between utterances (with `waitForAnswer` or `bargeInAtMs`); absent in reports from before it existed: it paused. */
  waitAudio?: 'silence' | 'pause';
  timeouts: { connectMs: number; readyMs: number; finalMs: number };
  /** What one session kept and took of what the server sent (`--max-session-events`, `--max-session-mb`, in bytes); absent when the defaults. */
  caps?: { maxEvents: number; maxBytes: number };
  apiKey: string | null;
  tls: { ca: boolean; insecure: boolean };
  /** Batch transcription requests (HTTP dialects): what each asked for, and how its file was uploaded (`dataset`: as the dataset holds it). */
  transcription?: { responseFormat: string; temperature: number | null; stream: boolean; translate: boolean; upload: 'dataset' | 'wav' | 'flac' };
  /** Shared by every shard of one run (`--run-id`); absent in reports from before it existed. */
  runId?: string;
  /** The share of the run's sessions this report ran (`--shard I/N`, from 0); absent when it ran them all. */
  shard?: { index: number; count: number };
  /** Set when the load was recorded traffic replayed (`--replay`). */
  replay?: ReplayConfig;
  /**
   * Speech generation: the voice asked for, how the text was delivered, and the simulated
   * player's buffer; over HTTP the formats asked for; and the after-run check (sessions
   * checked per level, the transcription server of the round trip).
   */
  speech?: {
    voice: string | null;
    text: { kind: 'all' } | { kind: 'stream'; tokensPerS: number; firstTokenMs: number };
    playbackBufferMs: number;
    http?: { responseFormat: string; streamFormat: string; outputRate: number; instructions: string | null };
    quality?: { sessions: number; asr: { target: string; protocol: string; model: string } };
  };
}

/** A file of options (`voxbench run --config`): which it was, and what it set. */
export interface ConfigFileRecord {
  path: string;
  /** SHA-256 of the file's bytes, so a later reader can tell whether the file in a repository changed since. */
  sha256: string;
  /** The keys whose values the run took from the file, as written there. */
  set: string[];
  /** The keys the command line (or an environment variable) set instead: flags win. */
  overridden: string[];
}

export type RecordValue = string | number | boolean | null;
/** Seed 002's record, section by section: what another engineer needs to reproduce the test. */
export type ReproducibilityRecord = Record<'deployment' | 'input' | 'client' | 'session' | 'results', Record<string, RecordValue>>;

/** User-given entries (`--meta section.key=value`); a key without a section belongs to `deployment`. */
export type Meta = Record<string, Record<string, RecordValue>>;

export interface Benchmark<S extends ReportSession = ReportSession> {
  label: string;
  profile: LoadProfile;
  startMs: number;
  endMs: number;
  /** Set when the benchmark stopped early; its figures cover what finished. */
  stoppedBy?: IncompleteReason;
  clientHealth: ClientHealth;
  summary: BenchmarkSummary;
  sessions: S[];
}

/**
 * A session of a level: its record, its phase, `start` (whether it found the target cold,
 * the run's first or the first after an idle gap, or warm; absent in reports from before
 * it existed) and its metrics. `report.json` stores these; version 3 stores the timeline
 * in the session log only. In memory a session also carries what was taken from its
 * timeline (`figures` for the summary, `facts` for the outputs), and the timeline itself
 * only where it is still held: a run's own sessions, an older report's, and the few
 * sessions a chart draws, read back from the log at `logAt`.
 */
export type ReportSession = Omit<SessionRecord, 'timeline'> & {
  /**
   * Speech generation: what the after-run check found in the session's audio, which it
   * adds to the timeline once the level has ended, after the session was logged; kept
   * here so that the log's timeline gets it back when the report is read (version 3).
   */
  analysis?: SpeechAnalysis[];
  phase: Phase;
  start?: Start;
  metrics: SessionMetrics;
  timeline?: SessionTimeline;
  figures: SessionFigures;
  facts: SessionFacts;
  logAt?: LogPlace;
};

/** A session whose timeline is held: every session of a run's own report, or of one read with its timelines. */
export type HeldSession = ReportSession & { timeline: SessionTimeline };

/** A report that holds every session's timeline in memory (`run`, the proxy, `readReport` with `keepTimelines`). */
export type HeldReport = Report<HeldSession>;

/** The keys of a session that `report.json` leaves out: its timeline (in the log) and what was taken from it. */
export const IN_MEMORY_ONLY: ReadonlySet<string> = new Set(['timeline', 'figures', 'facts', 'logAt']);

/** One input as the outputs show it: its place, when its last frame was sent, and its CSV columns by head. */
export interface InputFacts {
  index: number;
  sampleId?: string;
  split?: string;
  /** The last frame sent for it, ms; absent when none was. */
  lastSentMs?: number;
  columns: Record<string, unknown>;
}

/**
 * What the outputs read of one session's timeline beyond its metrics, taken while the
 * timeline is at hand, so that a report renders one session at a time from the session
 * log and drops each timeline once read (issue 38).
 */
export interface SessionFacts {
  close?: CloseRecord;
  /** Each planned input's sample. */
  inputSampleIds: string[];
  inputs: InputFacts[];
  /** How each response ended (`done`, `cancelled`, ...). */
  responseStatuses: string[];
  /** Characters of the texts the session sent. */
  textChars: number;
  /** Whether any audio was received. */
  audioReceived: boolean;
  /** Speech to speech: the session's rows of `duplex_metrics.json`. */
  duplex?: DuplexRows;
}

/** One speech-to-speech session's rows of `duplex_metrics.json`, before the identity of its level and samples: each response's with its input, and the session's. */
export interface DuplexRows {
  requests: Array<{ input: number; row: Record<string, unknown> }>;
  session: Record<string, unknown>;
}
