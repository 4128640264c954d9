import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { monotonicClock } from '../clock.js';
import type { WebSocketDialect } from '../dialects/dialect.js';
import { createDialect, METERED_PROTOCOLS, type Protocol } from '../dialects/index.js';
import { LiveMetrics } from '../live/metrics.js';
import { serveMetrics, type Listen, type MetricsEndpoint } from '../live/serve.js';
import { writeOutputs, type OutputFormat } from '../report/outputs.js';
import { redactUrl } from '../report/redact.js';
import { TEXT_LIMITS } from '../session/bounds.js';
import type { Report } from '../report/schema.js';
import type { SessionRecord, TurnDetection } from '../timeline/types.js';
import { readSessionLog, SESSION_LOG, SessionLog } from '../report/session-log.js';
import { observedReport } from './observed-report.js';
import { ObservedSession } from './observer.js';
import { startRelay, type RelayOptions } from './relay.js';

export interface ProxyOptions {
  listen: Listen;
  /** The server: `ws://host:port` or `wss://`; each client's path and query are appended. */
  upstream: string;
  /** The dialect to meter with; omitted, each connection's is inferred from its upgrade. */
  protocol?: Protocol;
  /** Serve `/metrics` and `/healthz` here. */
  metrics?: Listen;
  /** Log each observed session here as it ends (sessions.jsonl), and build the report from the log when the proxy stops. */
  outputDir?: string;
  outputs?: OutputFormat[];
  /** Upstream handshake limit, ms. Default 10000. */
  connectTimeoutMs?: number;
  /** For a `wss://` upstream. */
  tls?: RelayOptions['tls'];
  /** Each ended session, e.g. for a log line. Its timeline holds no header, so no secret. */
  onSession?(record: SessionRecord, protocol: Protocol, model: string): void;
}

/** The session log's level for observed sessions: one level, whatever the concurrency seen. */
const OBSERVED_LEVEL = 'observed';

/** Distinct model labels kept: clients name the model, and a label per name would let them grow the registry without bound. */
export const MODEL_LABELS = 32;

export interface RunningProxy {
  /** `ws://host:port`: connect here instead of the server, with the same path. */
  url: string;
  metrics?: MetricsEndpoint;
  live: LiveMetrics;
  /** Connections open now. */
  open(): number;
  /** Stops: open connections are cut and end incomplete; with `outputDir`, builds the report from the session log, writes it and returns it. */
  close(): Promise<{ report?: Report; written: string[] }>;
}

/**
 * `voxbench proxy`: a reverse proxy for speech WebSockets that meters every
 * connection passively. The relay forwards everything unchanged; a copy of each frame
 * goes to the connection's `ObservedSession`, which builds the neutral timeline with
 * the dialect's codec, and each ended session goes through the metric catalog into the
 * Prometheus registry (and, with an output folder, into the session log, from which
 * the observed report is built when the proxy stops: it keeps no ended session).
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const clock = monotonicClock();
  // Opened first, so that a folder that cannot be written leaves nothing listening.
  const log = options.outputDir === undefined ? undefined : await SessionLog.open(options.outputDir, false);
  const live = new LiveMetrics();
  const models = new Map<string, number>();
  const sessions = new Set<ObservedSession>();
  const protocols = new Set<Protocol>();
  let next = 0;
  let open = 0;
  let peakOpen = 0;

  const connection = (request: IncomingMessage): ObservedSession => {
    const protocol = options.protocol ?? protocolOfUpgrade(request);
    protocols.add(protocol);
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams;
    const outputRate = outputRateOf(query);
    const session = new ObservedSession(next++, clock.now(), meteringDialect(protocol, 'client', outputRate), (td) => meteringDialect(protocol, td, outputRate).policy(), options.upstream, {
      opened: () => {
        live.sessionOpened(protocol);
        peakOpen = Math.max(peakOpen, ++open);
      },
      ended: (record, s) => {
        sessions.delete(s);
        if (s.upgraded) open--;
        if (s.model && (models.has(s.model) || models.size < MODEL_LABELS)) models.set(s.model, (models.get(s.model) ?? 0) + 1);
        const model = !s.model || models.has(s.model) ? s.model : 'other';
        live.sessionEnded(record, { protocol, model }, s.upgraded);
        log?.append({ level: OBSERVED_LEVEL, profile: { kind: 'concurrent', concurrency: Math.max(1, peakOpen) }, startedAt, record });
        options.onSession?.(record, protocol, model);
      },
    });
    // A model named in the URL (OpenAI's ?model=, ElevenLabs' model_id, Deepgram's model) until the client's configuration names one.
    session.model = (query.get('model') ?? query.get('model_id') ?? '').slice(0, TEXT_LIMITS.fieldChars);
    sessions.add(session);
    return session;
  };

  const startedAt = clock.wallStart.toISOString();
  const observedRun = (records: SessionRecord[], placeholder = false): Report =>
    observedReport({
      startedAt: clock.wallStart,
      protocol: options.protocol ?? ([...protocols].join('+') || 'vllm'),
      model: [...models].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '',
      records,
      peakOpen,
      observed: { listen: relay.url, upstream: redactUrl(options.upstream) },
      placeholder,
    });
  const relay = await startRelay({
    host: options.listen.host,
    port: options.listen.port,
    upstream: options.upstream,
    now: clock.now,
    connection,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    ...(options.tls ? { tls: options.tls } : {}),
  }).catch(async (err: unknown) => {
    await log?.close();
    throw err;
  });
  const metrics = options.metrics ? await serveMetrics(live.registry, options.metrics).catch(async (err: unknown) => {
    await relay.close();
    await log?.close();
    throw err;
  }) : undefined;
  if (options.outputDir !== undefined) await writeOutputs(observedRun([], true), options.outputDir);

  return {
    url: relay.url,
    ...(metrics ? { metrics } : {}),
    live,
    open: () => open,
    close: async () => {
      for (const session of [...sessions]) session.interrupt();
      await relay.close();
      await metrics?.close();
      if (!log || options.outputDir === undefined) return { written: [] };
      await log.close();
      // Built from the log, as `report render` does: the proxy kept no session in memory.
      const report = observedRun((await readSessionLog(options.outputDir)).map((entry) => entry.record));
      return { report, written: [...(await writeOutputs(report, options.outputDir, options.outputs)), join(options.outputDir, SESSION_LOG)] };
    },
  };
}

/** The speech-generation servers' own paths, each a dialect's alone (OpenAI Realtime's is shared with transcription: it needs --protocol). */
const SPEECH_PATHS: ReadonlyArray<[RegExp, Protocol]> = [
  [/\/v1\/audio\/speech\/stream$/, 'vllm-omni-speech-ws'],
  [/\/v1\/text-to-speech\/[^/]+\/stream-input$/, 'elevenlabs'],
  [/\/v1\/speak$/, 'deepgram-aura'],
  [/\/tts\/websocket$/, 'cartesia'],
];

/**
 * The dialect of an upgrade: a speech-generation server's own path is its dialect
 * (vLLM-Omni's `/v1/audio/speech/stream`, ElevenLabs' `…/stream-input`, Deepgram's
 * `/v1/speak`, Cartesia's `/tts/websocket`); otherwise, by the rule the OpenAI and
 * vLLM servers' paths follow, `?intent=` or `?model=` in the URL, or an `OpenAI-Beta`
 * header, is OpenAI Realtime transcription (beta with `realtime=v1`); anything else is vLLM's.
 */
export function protocolOfUpgrade(request: IncomingMessage): Protocol {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const speech = SPEECH_PATHS.find(([path]) => path.test(url.pathname));
  if (speech) return speech[1];
  const beta = request.headers['openai-beta'];
  if (beta !== undefined && String(beta).includes('realtime=v1')) return 'openai-beta';
  return url.searchParams.has('intent') || url.searchParams.has('model') || beta !== undefined ? 'openai' : 'vllm';
}

/**
 * The PCM rate a speech-generation client asked for in its URL (Deepgram's
 * `sample_rate`, ElevenLabs' `output_format=pcm_<rate>`), which sizes the audio it gets;
 * else 24 kHz, what the other dialects speak at unless their messages say otherwise.
 */
export function outputRateOf(query: URLSearchParams): number {
  const rate = Number(query.get('sample_rate') ?? /^pcm_(\d+)$/.exec(query.get('output_format') ?? '')?.[1]);
  return Number.isInteger(rate) && rate >= 8_000 && rate <= 192_000 ? rate : 24_000;
}

/** A dialect to read a connection with: only its codec and policy are used, so its settings are placeholders, bar who ends turns and the audio's rate. */
function meteringDialect(protocol: Protocol, turnDetection: TurnDetection, outputRate: number): WebSocketDialect & Required<Pick<WebSocketDialect, 'readSent'>> {
  const dialect = createDialect(protocol, {
    model: '',
    turnDetection: turnDetection === 'client' ? { type: 'none' } : { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 },
    speech: { model: '', responseFormat: 'pcm', streamFormat: 'audio', outputRate },
  });
  if (dialect.transport !== 'websocket' || !dialect.readSent) throw new Error(`--protocol ${protocol}: the proxy meters WebSocket dialects (${METERED_PROTOCOLS.join(', ')})`);
  return dialect as WebSocketDialect & Required<Pick<WebSocketDialect, 'readSent'>>;
}
