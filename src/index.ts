/** voxbench as a library: the CLI is a thin layer over these. */
import { loadDialects } from './dialects/index.js';

export { run, UsageError, type RunOptions, type RunResult } from './run/run.js';
export { EXIT, exitCodeOf, runOutcome, slosHeld, type RunOutcome } from './run/run-outcome.js';
export { resolveApiKey, type ApiKeySources } from './config/api-key.js';
export { OptionsError } from './config/errors.js';
export { writeOutputs } from './report/outputs.js';
export { OUTPUT_FORMATS, type OutputFormat } from './report/output-formats.js';
export { PROTOCOLS, DIALECTS, createDialect, type Protocol } from './dialects/index.js';
export {
  ProtocolViolation,
  type Dialect,
  type WebSocketDialect,
  type HttpDialect,
  type CompletionPolicy,
  type DecodedEvent,
  type BodyDecoder,
  type HttpRequest,
} from './dialects/dialect.js';
export { runWebSocketSession, type WebSocketPlan } from './session/ws-runner.js';
export { runHttpSession, type HttpPlan, type PreparedRequest } from './session/http-runner.js';
export { sessionView, type SessionView, type InputView, type ResponseView, type TextStream, type Anomaly } from './views/session-view.js';
export { playback, type Playback } from './views/playback.js';
export { fromV1 } from './timeline/v1.js';
export type { OpenAITurnDetection } from './dialects/realtime-common.js';
export { DEFAULT_MODEL, OPENAI_MODELS, DEFAULT_SERVER_OPTIONS, type RunningServer, type ServerOptions } from './server/server.js';
export { startServer } from './simulator/start.js';
export { DEFAULT_LATENCY, type LatencyModelOptions } from './server/models/latency-model.js';
export {
  METRICS,
  addMetric,
  metricByName,
  metricsFor,
  describeMetrics,
  measure,
  type MetricDefinition,
  type MetricDescription,
  type Tag,
  type Unit,
} from './metrics/catalog.js';
export { ANCHORS, type Anchor } from './metrics/anchors.js';
export { computeSessionMetrics, summarizeBenchmark, type BenchmarkSummary, type SessionMetrics } from './metrics/compute.js';
export { summarize, PERCENTILE_METHOD, type Distribution } from './metrics/stats.js';
export { findNormalizer, normalizerFor, type Normalizer } from './metrics/normalizers/index.js';
export { transcriptErrors, errorRate, type TranscriptErrors, type WordErrors, type CharErrors } from './metrics/wer.js';
export { transcriptErrorsOf } from './metrics/quality.js';
export { scoreDiarization, type DiarizationScore } from './metrics/diarization/score.js';
export { derOf, type DiarizationErrors } from './metrics/diarization/der.js';
export { jerOf, type JaccardErrors } from './metrics/diarization/jer.js';
export { DEFAULT_RULES as DEFAULT_DIARIZATION_RULES, describeRules, matchingTools, type DiarizationRules, type Collar } from './metrics/diarization/rules.js';
export { wordSpeakerErrors, wordSpeakerErrorRate, type WordSpeakerErrors } from './metrics/diarization/words.js';
export { speakerStability, relabelledShare, type SpeakerStability, type WordEmission } from './metrics/diarization/stability.js';
export { corpusDiarization, corpusWordSpeakerErrors, corpusSpeakerStability, type CorpusDiarization } from './metrics/diarization/corpus.js';
export { sessionSpeakers, countedInputs, corpusSpeakers, type InputSpeakers, type CorpusSpeakers } from './metrics/diarization/session.js';
export { renderSummary } from './report/console.js';
export { renderHtml } from './report/html/index.js';
export { renderCsv } from './report/csv.js';
export { renderMarkdown } from './report/markdown.js';
export { compareReports, renderComparison, type Comparison } from './report/compare.js';
export { mergeReports } from './report/merge.js';
export { readHeldReport, readReport, recompute } from './report/recompute.js';
export {
  extractShape,
  parseShape,
  shapeText,
  ShapeError,
  SHAPE_FORMAT,
  SHAPE_VERSION,
  type ShapeHeader,
  type ShapeSession,
  type ShapeInput,
} from './load/traffic-shape.js';
export { planReplay, type Replay, type ReplayOptions, type ReplayedSession, type ReplaySkip } from './load/replay.js';
export { loadDataset, type DatasetOptions } from './data/load.js';
export type { HubOptions } from './data/hub/source.js';
export { inspectDataset } from './data/inspect.js';
export type { Dataset, Sample, DatasetSummary } from './data/dataset.js';
export { decodeAudio, type MonoAudio } from './audio/decode.js';
export {
  REPORT_SCHEMA,
  REPORT_VERSION,
  type Report,
  type HeldReport,
  type Benchmark,
  type RunConfig,
  type Telemetry,
  type TelemetrySeries,
} from './report/schema.js';
export { parseExposition, ExpositionError, type MetricFamily } from './scrape/exposition.js';
export { startScraping, type ScrapeOptions, type Scraping } from './scrape/scraper.js';
export { parsePace, type Pace } from './session/pace.js';
export { DEFAULT_TIMEOUTS, type StageTimeouts } from './session/runner.js';
export type { LoadProfile } from './load/profiles.js';
export { parseStages, type LoadStage } from './load/stages.js';
export type * from './timeline/types.js';
export { startProxy, protocolOfUpgrade, type ProxyOptions, type RunningProxy } from './proxy/proxy.js';
export { LiveMetrics, LATENCY_BUCKETS, type SessionLabels } from './live/metrics.js';
export { serveMetrics, type MetricsEndpoint } from './live/serve.js';
export { VERSION } from './util/version.js';

// createDialect is synchronous, so every dialect's client loads with the library (the CLI loads only the one it speaks).
await loadDialects();
