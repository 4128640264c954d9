import { createServer as createHttpServer, STATUS_CODES, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Sample } from '../data/dataset.js';
import { faultOf, faultPicker, type FaultScenario } from './faults/faults.js';
import { DEFAULT_LATENCY, LatencyModel, type LatencyModelOptions } from './models/latency-model.js';
import { buildReferences, ReferenceIndex } from './models/recognizer.js';
import { ServerMetrics } from './server-metrics.js';
import type { SessionContext } from './sessions/session-context.js';
import { OPENAI_TTS_MODELS, serveSpeech, SPEECH_PATH } from './sessions/speech-endpoint.js';
import { DEFAULT_SPEECH_LATENCY, DEFAULT_VOICE, SpeechLatencyModel, type SpeechLatencyOptions, type VoiceOptions } from './models/speech-synth.js';
import { keyAccepted } from '../dialects/spec.js';
import { OPENAI_MODELS } from '../dialects/openai/spec.js';
import { TRANSCRIPTION_PATHS, TRANSCRIPTION_RATE, VLLM_TRANSCRIPTIONS } from '../dialects/transcriptions/spec.js';
import { VLLM } from '../dialects/vllm/spec.js';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../dialects/vllm-omni-speech/spec.js';
import { dialectRoutes, REALTIME_PATH } from './dialect-routes.js';
import type { SimulatedDialects } from './simulated-dialect.js';
import { DEFAULT_SPEAKER_ERRORS, type SpeakerErrors } from './models/speakers.js';
import { NOT_READY, Wake } from './wake.js';

export { OPENAI_MODELS };

export const DEFAULT_MODEL = VLLM.defaultModel;
/** Where the server's Prometheus metrics are served, as vLLM serves its own. */
export const METRICS_PATH = '/metrics';
/** The model vLLM's batch transcription is benchmarked with here by default. */
export const WHISPER_MODEL = VLLM_TRANSCRIPTIONS.defaultModel;

export interface ServerOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host: string;
  /** Port; 0 picks a free one. Default 8000. */
  port: number;
  /** Model names a session or request may name. Default the Voxtral realtime model, OpenAI's transcription models and Whisper large-v3. */
  models: string[];
  /** Samples the server recognizes and transcribes with their reference words. */
  references: Sample[];
  latency: LatencyModelOptions;
  /** Send Voxtral-style empty deltas (vLLM dialect; speech SSE: one before the first audio). Default false. */
  emptyDeltas: boolean;
  /** Speech generation: the simulated voice (rate, leading silence, level). */
  voice: VoiceOptions;
  /** Speech generation: first-audio delay, real-time factor, jitter, capacity knee, chunk size. */
  speechLatency: SpeechLatencyOptions;
  /** Speech generation: answer `stream: true` with raw bytes whatever `stream_format` says, as vLLM-Omni did before mid-2026. Default false. */
  legacySpeechStream: boolean;
  /** OpenAI dialects: stream deltas while speech arrives, not after the commit. Default false. */
  streamDuringSpeech: boolean;
  /** Serve `wss://` with this certificate and key (PEM). */
  tls?: { cert: string; key: string };
  /** Require `Authorization: Bearer <key>` on the upgrade, as `vllm serve --api-key` does. */
  apiKey?: string;
  /** Per-connection audio limit, MB. Default 25. */
  maxAudioMb: number;
  /** vLLM dialect: acknowledge consumed audio with `progress` events, as seed 001's runner does. Default false. */
  progressAcks: boolean;
  /** vLLM dialect: ingest audio at most this many times real time. Default Infinity (at once). */
  ingestSpeed: number;
  /** How wrong speaker labels are, in dialects that label speakers when asked. Default none wrong. */
  speakers: SpeakerErrors;
  /** AssemblyAI: show each word of a running turn pending (`word_is_final: false`) before it is final, its times this many ms off the final ones. Default undefined: every word final at once. */
  pendingWordsMs?: number;
  /** AssemblyAI: end a stream with `speaker_labels=true` with a `SpeakerRevision` that gives earlier turns' words their reference speakers. Default false. */
  speakerRevision: boolean;
  /** Fault scenarios (`parseFaultScenario`); a faulted session gets one of them. Default none. */
  faults: FaultScenario[];
  /** Share of sessions that get a fault, drawn per upgrade from a generator seeded with `latency.seed`. Default 1. */
  faultRate: number;
  /** Refuse this many first connections (WebSocket upgrades and transcription or speech requests) with HTTP 503, as a server still starting does. Default 0. */
  refuseFirst: number;
  /** Hold the first connection taken, and those that arrive while it is held, this long: a cold start. Default 0. */
  coldStartMs: number;
  /** Told of every upgrade, accepted or refused, once; `serve` logs them. Its text holds the client's path, unsanitised. */
  onConnection?: (event: ConnectionEvent) => void;
  /** Told of each speech response as its first audio is written: ms after the request was read. */
  onSpeechFirstAudio?: (ms: number) => void;
}

export interface ConnectionEvent {
  /** The client's address and port. */
  from: string;
  /** The dialect it will speak, or the HTTP status it was refused with. */
  outcome: { dialect: string } | { refused: number; reason: string };
}

export const DEFAULT_SERVER_OPTIONS: ServerOptions = {
  host: '127.0.0.1',
  port: 8000,
  models: [DEFAULT_MODEL, ...OPENAI_MODELS, WHISPER_MODEL, DEFAULT_VLLM_OMNI_TTS_MODEL, ...OPENAI_TTS_MODELS],
  references: [],
  latency: DEFAULT_LATENCY,
  emptyDeltas: false,
  voice: DEFAULT_VOICE,
  speechLatency: DEFAULT_SPEECH_LATENCY,
  legacySpeechStream: false,
  streamDuringSpeech: false,
  maxAudioMb: 25,
  progressAcks: false,
  ingestSpeed: Infinity,
  speakers: DEFAULT_SPEAKER_ERRORS,
  speakerRevision: false,
  faults: [],
  faultRate: 1,
  refuseFirst: 0,
  coldStartMs: 0,
};

export interface RunningServer {
  /** `ws://host:port/v1/realtime` (`wss://` with TLS) */
  url: string;
  /** `http://host:port` (`https://` with TLS): where `POST /v1/audio/transcriptions` is served. */
  origin: string;
  port: number;
  openSessions(): number;
  close(): Promise<void>;
}

/**
 * Hosts a simulated server over a latency and capacity model for the dialects it is
 * handed (`startServer` in src/simulator/ hands it all of them). Each WebSocket dialect
 * is served on its own path or told apart on the shared `/v1/realtime` by its upgrade
 * (dialect-routes.ts); the HTTP endpoints are routed here.
 */
export async function hostServer(overrides: Partial<ServerOptions>, dialects: SimulatedDialects): Promise<RunningServer> {
  const { references, ...options }: ServerOptions = { ...DEFAULT_SERVER_OPTIONS, ...overrides };
  const routes = dialectRoutes(dialects.websocket);
  const referencesAt = await indexReferences(references, [TRANSCRIPTION_RATE, ...routes.inputRates]);
  const latency = new LatencyModel(options.latency);
  // Sessions answer pings themselves, so that a silent server is silent and no pong lands inside a raw frame.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, autoPong: false });
  const pickFaults = faultPicker(options.faults, options.faultRate, options.latency.seed);
  const wake = new Wake(options.refuseFirst, options.coldStartMs);
  /** Upgrades that slow-accept or the cold start is holding. */
  const held = new Set<Duplex>();
  let open = 0;
  /** Batch transcription requests in flight, counted for /metrics only (the endpoint's latency model counts them itself). */
  let transcribing = 0;
  const metrics = new ServerMetrics(options.models[0] ?? DEFAULT_MODEL, latency.options.capacity, () => open + transcribing);
  const speech = {
    servedModels: options.models,
    voice: options.voice,
    latency: new SpeechLatencyModel(options.speechLatency),
    legacyStream: options.legacySpeechStream,
    emptyDeltas: options.emptyDeltas,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.onSpeechFirstAudio ? { onFirstAudio: options.onSpeechFirstAudio } : {}),
    openSessions: () => open,
  };

  const transcribe = dialects.transcription({
    servedModels: options.models,
    latency,
    references: referencesAt(TRANSCRIPTION_RATE),
    maxAudioBytes: options.maxAudioMb * 1024 * 1024,
    speakers: options.speakers,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    pickFaults,
    openSessions: () => open,
  });
  const onRequest = (req: IncomingMessage, res: import('node:http').ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const task = TRANSCRIPTION_PATHS[path];
    if (task || path === SPEECH_PATH) {
      const admitted = wake.admit();
      if (admitted === 'refuse') {
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: NOT_READY }));
        return;
      }
      if (admitted > 0) {
        const timer = setTimeout(() => serveRequest(req, res, path), admitted);
        res.once('close', () => clearTimeout(timer));
        return;
      }
    }
    serveRequest(req, res, path);
  };
  const serveRequest = (req: IncomingMessage, res: import('node:http').ServerResponse, path: string): void => {
    const task = TRANSCRIPTION_PATHS[path];
    if (task) {
      transcribing++;
      res.once('close', () => transcribing--);
      return transcribe(req, res, task);
    }
    if (path === METRICS_PATH && req.method === 'GET') {
      void metrics.scrape().then(({ contentType, text }) => res.writeHead(200, { 'content-type': contentType }).end(text));
      return;
    }
    if (path === SPEECH_PATH) {
      // A speech request is a session: it counts toward the capacity knee while it is open.
      open++;
      res.once('close', () => open--);
      return serveSpeech(req, res, speech, pickFaults());
    }
    if (routes.request(req, res, { ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}), pickFaults })) return;
    res
      .writeHead(426, { 'content-type': 'text/plain' })
      .end(
        `voxbench simulated server: connect a WebSocket to ${REALTIME_PATH}, POST to ${SPEECH_PATH} or ${Object.keys(TRANSCRIPTION_PATHS).join(' or ')}, or GET ${METRICS_PATH}\n`,
      );
  };
  const http = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest) : createHttpServer(onRequest);
  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const from = `${request.socket.remoteAddress}:${request.socket.remotePort}`;
    const refuseWith = (status: number, reason: string): void => {
      options.onConnection?.({ from, outcome: { refused: status, reason } });
      refuse(socket, status, { error: reason });
    };
    const upgrade = { url, headers: request.headers };
    const dialect = routes.dialectOf(upgrade);
    if (dialect === undefined) return refuseWith(404, `Not Found: ${path}`);
    const admitted = wake.admit();
    if (admitted === 'refuse') return refuseWith(503, NOT_READY);
    const faults = pickFaults();
    const refused = faultOf(faults, 'upgrade');
    if (refused) return refuseWith(refused.status, 'injected fault');
    if (options.apiKey !== undefined && !keyAccepted(dialect, upgrade, options.apiKey)) return refuseWith(401, 'Unauthorized');
    const accept = (): void =>
      wss.handleUpgrade(request, socket, head, (ws) => {
        options.onConnection?.({ from, outcome: { dialect: dialect.name } });
        open++;
        const disconnected = metrics.connected();
        ws.on('close', () => {
          open--;
          disconnected();
        });
        const ctx: SessionContext = {
          servedModels: options.models,
          latency,
          // A speech generator hears no audio: any index does.
          references: referencesAt(dialect.inputRate ?? TRANSCRIPTION_RATE),
          openSessions: () => open,
          emptyDeltas: options.emptyDeltas,
          maxAudioBytes: options.maxAudioMb * 1024 * 1024,
          progressAcks: options.progressAcks,
          ingestSpeed: options.ingestSpeed,
          streamDuringSpeech: options.streamDuringSpeech,
          speakers: options.speakers,
          ...(options.pendingWordsMs !== undefined ? { pendingWordsMs: options.pendingWordsMs } : {}),
          speakerRevision: options.speakerRevision,
          faults,
          socket: socket as Socket,
          speech,
        };
        dialect.open(ws, ctx, upgrade);
      });
    const slow = faultOf(faults, 'slow-accept');
    if (!slow && admitted === 0) return accept();
    held.add(socket);
    socket.on('error', () => socket.destroy()); // until ws takes the socket, nothing else listens for its errors
    const timer = setTimeout(
      () => {
        held.delete(socket);
        accept();
      },
      Math.max(slow?.ms ?? 0, admitted),
    );
    socket.once('close', () => {
      clearTimeout(timer);
      held.delete(socket);
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `${options.tls ? 'wss' : 'ws'}://${host}:${port}${REALTIME_PATH}`,
    origin: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    openSessions: () => open,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        for (const socket of held) socket.destroy();
        wss.close();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/** The samples indexed at each rate audio is heard at, each rate once. Only the indexes are kept, not the samples' decoded audio. */
async function indexReferences(samples: readonly Sample[], rates: readonly number[]): Promise<(rate: number) => ReferenceIndex> {
  const unique = [...new Set(rates)];
  const indexes = await Promise.all(unique.map(async (rate) => new ReferenceIndex(await buildReferences(samples, rate))));
  return (rate) => indexes[unique.indexOf(rate)]!;
}

function refuse(socket: Duplex, status: number, body: object): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
