/** voxbench as a library: the CLI is a thin layer over these. */
export { run, UsageError, type RunOptions, type RunResult } from './run.js';
export { writeOutputs, OUTPUT_FORMATS, type OutputFormat } from './report/outputs.js';
export { PROTOCOLS, createAdapter, type Protocol } from './adapters/index.js';
export type { ProtocolAdapter, InterpretedEvent } from './adapters/adapter.js';
export type { OpenAITurnDetection } from './adapters/openai.js';
export { startServer, DEFAULT_MODEL, OPENAI_MODELS, DEFAULT_SERVER_OPTIONS, type RunningServer, type ServerOptions } from './server/server.js';
export { DEFAULT_LATENCY, type LatencyModelOptions } from './server/latency-model.js';
export { METRICS, metricByName, describeMetrics, type MetricDefinition, type Unit } from './metrics/catalog.js';
export { computeSessionMetrics, summarizeBenchmark, type BenchmarkSummary, type SessionMetrics } from './metrics/compute.js';
export { summarize, PERCENTILE_METHOD, type Distribution } from './metrics/stats.js';
export { renderSummary } from './report/console.js';
export { REPORT_SCHEMA, REPORT_VERSION, type Report, type Benchmark, type RunConfig } from './report/schema.js';
export { parsePace, type Pace } from './session/pace.js';
export { DEFAULT_TIMEOUTS, type StageTimeouts } from './session/run-session.js';
export type { LoadProfile } from './load/profiles.js';
export type * from './timeline/types.js';
export { VERSION } from './version.js';
