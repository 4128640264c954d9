import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { monotonicClock } from '../runtime/clock.js';
import { DEFAULT_PROTOCOL, DIALECTS, loadDialects, OWN_PATHS, sharedPathProtocol, upgradeTurnDetection, type Protocol } from '../dialects/index.js';
import { pathPattern } from '../dialects/spec.js';
import { pcmRate, TTS_RATE } from '../dialects/tts-common.js';
import { LiveMetrics } from '../live/metrics.js';
import { serveMetrics, type Listen, type MetricsEndpoint } from '../live/serve.js';
import { writeOutputs } from '../report/outputs.js';
import type { OutputFormat } from '../report/output-formats.js';
import { redactUrl } from '../report/redact.js';
import { TEXT_LIMITS } from '../dialects/text-limits.js';
import type { HeldReport } from '../report/schema.js';
import type { SessionRecord, Task } from '../timeline/types.js';
import { readSessionLog, SESSION_LOG, SessionLog } from '../report/session-log.js';
import { observedLevel, observedProfile, observedReport } from './observed-report.js';
import { dialectInference, meteringDialect } from './metering.js';
import { ObservedSession, type MeterSettings } from './observer.js';
import { startRelay, type ConnectionHooks, type RelayOptions } from './relay.js';
import { SettlingConnection } from './settling.js';

// The proxy tells and meters every dialect, so every dialect's client loads with it.
await loadDialects();

export interface ProxyOptions {
  listen: Listen;
  /** The server: `ws://host:port` or `wss://`; each client's path and query are appended. */
  upstream: string;
  /** The dialect to meter with; omitted, each connection's is inferred from its upgrade (and, on OpenAI Realtime's path, its client's first messages). */
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
  close(): Promise<{ report?: HeldReport; written: string[] }>;
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
  /** Connections not yet ended, to cut when the proxy stops. */
  const sessions = new Set<{ interrupt(): void }>();
  const protocols = new Set<Protocol>();
  let next = 0;
  let open = 0;
  /** Connections open now and the most open at once, by task: each task's observed level. */
  const openByTask: Partial<Record<Task, number>> = {};
  const peakOpen: Partial<Record<Task, number>> = {};

  const connection = (request: IncomingMessage): ConnectionHooks => {
    const [index, startMs] = [next++, clock.now()];
    const url = new URL(request.url ?? '/', 'http://localhost');
    const query = url.searchParams;
    const settings: MeterSettings = { turnDetection: 'client', outputRate: outputRateOf(query) };
    const start = (protocol: Protocol): ObservedSession => {
      protocols.add(protocol);
      const task = DIALECTS[protocol];
      const turnDetection = upgradeTurnDetection(protocol, { url, headers: request.headers }) ?? settings.turnDetection;
      const session = new ObservedSession(index, startMs, (s) => meteringDialect(protocol, s), { ...settings, turnDetection }, options.upstream, {
        opened: () => {
          live.sessionOpened(protocol);
          open++;
          openByTask[task] = (openByTask[task] ?? 0) + 1;
          peakOpen[task] = Math.max(peakOpen[task] ?? 0, openByTask[task]);
        },
        ended: (record, s) => {
          sessions.delete(hooks);
          if (s.upgraded) {
            open--;
            openByTask[task]!--;
          }
          if (s.model && (models.has(s.model) || models.size < MODEL_LABELS)) models.set(s.model, (models.get(s.model) ?? 0) + 1);
          const model = !s.model || models.has(s.model) ? s.model : 'other';
          live.sessionEnded(record, { protocol, model }, s.upgraded);
          log?.append({ level: observedLevel(task), profile: observedProfile(peakOpen[task] ?? 0), startedAt, record, protocol, ...(model ? { model } : {}) });
          options.onSession?.(record, protocol, model);
        },
      });
      // A model named in the URL (OpenAI's ?model=, ElevenLabs' model_id, Deepgram's model, AssemblyAI's speech_model) until the client's configuration names one.
      session.model = (query.get('model') ?? query.get('model_id') ?? query.get('speech_model') ?? '').slice(0, TEXT_LIMITS.fieldChars);
      return session;
    };
    const provisional = options.protocol ?? protocolOfUpgrade(request);
    // Without --protocol, a dialect the upgrade leaves open is settled by what the client sends first.
    const inference = options.protocol === undefined ? dialectInference(provisional, { url, headers: request.headers }) : undefined;
    const hooks = inference ? new SettlingConnection(inference, start) : start(provisional);
    sessions.add(hooks);
    return hooks;
  };

  const startedAt = clock.wallStart.toISOString();
  const observedRun = (records: SessionRecord[], placeholder = false): HeldReport =>
    observedReport({
      startedAt: clock.wallStart,
      protocol: options.protocol ?? ([...protocols].join('+') || DEFAULT_PROTOCOL),
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
  const metrics = options.metrics
    ? await serveMetrics(live.registry, options.metrics).catch(async (err: unknown) => {
        await relay.close();
        await log?.close();
        throw err;
      })
    : undefined;
  // Only report.json: it is what `report render` needs beside the log; the other formats are written when the proxy stops.
  if (options.outputDir !== undefined) await writeOutputs(observedRun([], true), options.outputDir, ['json']);

  return {
    url: relay.url,
    ...(metrics ? { metrics } : {}),
    live,
    open: () => open,
    close: async () => {
      // What passed before the stop is metered first: a connection that has closed ends as it did, not interrupted.
      relay.flush();
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

/**
 * The dialects' own paths, each a dialect's alone (OpenAI Realtime's is shared with transcription and conversations: its client's first messages tell, see metering.ts).
 * Matched by their ends, the longest first: a short path (Livepeer's app's `/ws`) is also the end of longer ones.
 */
const OWN_PATH_ROUTES = [...OWN_PATHS]
  .sort((a, b) => b.path.length - a.path.length)
  .map(({ protocol, path }) => ({ protocol, path: pathPattern(path, false) }));

/**
 * The dialect of an upgrade: a speech-generation server's own path is its dialect
 * (vLLM-Omni's `/v1/audio/speech/stream`, ElevenLabs' `…/stream-input`, Deepgram's
 * `/v1/speak`, Cartesia's `/tts/websocket`); otherwise the shared path's dialects claim
 * it by its query and headers (`sharedPathProtocol`): OpenAI Realtime's transcription,
 * unless the client's first configuration says otherwise (`dialectInference`), or vLLM's.
 */
export function protocolOfUpgrade(request: IncomingMessage): Protocol {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const own = OWN_PATH_ROUTES.find(({ path }) => path.test(url.pathname));
  return own ? own.protocol : sharedPathProtocol({ url, headers: request.headers });
}

/**
 * The PCM rate a speech-generation client asked for in its URL (Deepgram's
 * `sample_rate`, ElevenLabs' `output_format=pcm_<rate>`), which sizes the audio it gets;
 * else 24 kHz, until the client's messages name another (Cartesia's requests, vLLM-Omni's
 * and OpenAI Realtime's session configuration: the dialect's `readSent`).
 */
export function outputRateOf(query: URLSearchParams): number {
  return pcmRate(Number(query.get('sample_rate') ?? /^pcm_(\d+)$/.exec(query.get('output_format') ?? '')?.[1])) ?? TTS_RATE;
}
