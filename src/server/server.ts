import { createServer as createHttpServer, STATUS_CODES, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Sample } from '../data/dataset.js';
import { faultOf, faultPicker, type FaultScenario } from './faults.js';
import { DEFAULT_LATENCY, LatencyModel, type LatencyModelOptions } from './latency-model.js';
import { OpenAISession, SAMPLE_RATE as OPENAI_RATE } from './openai-session.js';
import { buildReferences, ReferenceIndex } from './recognizer.js';
import type { SessionContext } from './session-context.js';
import { TRANSCRIPTION_PATHS, transcriptionEndpoint } from './transcription-endpoint.js';
import { VllmSession, SAMPLE_RATE as VLLM_RATE } from './vllm-session.js';
import { DuplexSession } from './duplex-session.js';
import { openRealtime } from './realtime-dispatch.js';
import { OPENAI_TTS_MODELS, serveSpeech, SPEECH_PATH } from './speech-endpoint.js';
import { DEFAULT_SPEECH_LATENCY, DEFAULT_VOICE, SpeechLatencyModel, type SpeechLatencyOptions, type VoiceOptions } from './speech-synth.js';
import { keyAccepted } from '../dialects/spec.js';
import { VLLM_TRANSCRIPTIONS } from '../dialects/transcriptions/spec.js';
import { VLLM } from '../dialects/vllm/spec.js';
import { VLLM_OMNI_DUPLEX } from '../dialects/vllm-omni-duplex/spec.js';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../dialects/vllm-omni-speech/spec.js';
import { simulatedDialectAt, type SimulatedName } from './simulated-dialects.js';

export const DEFAULT_MODEL = VLLM.defaultModel;
export const OPENAI_MODELS = ['gpt-4o-transcribe', 'gpt-4o-mini-transcribe', 'whisper-1'];
/** The model vLLM's batch transcription is benchmarked with here by default. */
export const WHISPER_MODEL = VLLM_TRANSCRIPTIONS.defaultModel;
export const REALTIME_PATH = '/v1/realtime';
/** vLLM-Omni's alias of `/v1/realtime?duplex=1`. */
export const DUPLEX_PATH = '/v1/duplex';
/** An OpenAI `?model=` naming one of these opens a conversation session, not a transcription one. */
export const REALTIME_MODEL = /^gpt-(4o-)?(mini-)?realtime/;

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
  /** Fault scenarios (`parseFaultScenario`); a faulted session gets one of them. Default none. */
  faults: FaultScenario[];
  /** Share of sessions that get a fault, drawn per upgrade from a generator seeded with `latency.seed`. Default 1. */
  faultRate: number;
  /** Told of every upgrade, accepted or refused, once; `serve` logs them. Its text holds the client's path, unsanitised. */
  onConnection?: (event: ConnectionEvent) => void;
  /** Told of each speech response as its first audio is written: ms after the request was read. */
  onSpeechFirstAudio?: (ms: number) => void;
}

export type ServedDialect = 'vllm' | 'openai' | 'vllm-omni-duplex' | 'openai-realtime' | SimulatedName;

export interface ConnectionEvent {
  /** The client's address and port. */
  from: string;
  /** The dialect it will speak, or the HTTP status it was refused with. */
  outcome: { dialect: ServedDialect } | { refused: number; reason: string };
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
  faults: [],
  faultRate: 1,
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
 * Starts the simulated realtime transcription server over a latency and capacity
 * model, no GPU and no network needed. One path serves every dialect: an upgrade
 * with `?intent=` or `?model=` in its URL, or an `OpenAI-Beta` header, speaks the
 * OpenAI Realtime dialect (beta with `OpenAI-Beta: realtime=v1`); any other speaks vLLM's.
 */
export async function startServer(overrides: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const { references, ...options }: ServerOptions = { ...DEFAULT_SERVER_OPTIONS, ...overrides };
  const [vllmReferences, openaiReferences] = await indexReferences(references);
  const latency = new LatencyModel(options.latency);
  // Sessions answer pings themselves, so that a silent server is silent and no pong lands inside a raw frame.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, autoPong: false });
  const pickFaults = faultPicker(options.faults, options.faultRate, options.latency.seed);
  /** Upgrades that slow-accept is holding. */
  const held = new Set<Duplex>();
  let open = 0;
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

  const transcribe = transcriptionEndpoint({
    servedModels: options.models,
    latency,
    references: vllmReferences!,
    maxAudioBytes: options.maxAudioMb * 1024 * 1024,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    eventShape: (model) => (OPENAI_MODELS.includes(model) ? 'openai' : 'vllm'),
    pickFaults,
    openSessions: () => open,
  });
  const onRequest = (req: IncomingMessage, res: import('node:http').ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const task = TRANSCRIPTION_PATHS[path];
    if (task) return transcribe(req, res, task);
    if (path === SPEECH_PATH) {
      // A speech request is a session: it counts toward the capacity knee while it is open.
      open++;
      res.once('close', () => open--);
      return serveSpeech(req, res, speech, pickFaults());
    }
    res.writeHead(426, { 'content-type': 'text/plain' }).end(`voxbench simulated server: connect a WebSocket to ${REALTIME_PATH}, or POST to ${SPEECH_PATH} or ${Object.keys(TRANSCRIPTION_PATHS).join(' or ')}\n`);
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
    const betaHeader = request.headers['openai-beta'];
    const model = url.searchParams.get('model');
    const simulated = simulatedDialectAt(path);
    const dialect: ServedDialect | undefined =
      simulated ? simulated.name
      : path === DUPLEX_PATH ? 'vllm-omni-duplex'
      : path !== REALTIME_PATH ? undefined
      : ['1', 'true', 'on'].includes(url.searchParams.get('duplex') ?? '') ? 'vllm-omni-duplex'
      : model !== null && REALTIME_MODEL.test(model) ? 'openai-realtime'
      : url.searchParams.has('intent') || model !== null || betaHeader !== undefined ? 'openai'
      : 'vllm';
    if (dialect === undefined) return refuseWith(404, `Not Found: ${path}`);
    const faults = pickFaults();
    const refused = faultOf(faults, 'upgrade');
    if (refused) return refuseWith(refused.status, 'injected fault');
    if (options.apiKey !== undefined && !keyAccepted(simulated?.auth ?? 'bearer', request.headers, options.apiKey)) return refuseWith(401, 'Unauthorized');
    const openai = dialect === 'openai' || dialect === 'openai-realtime';
    const accept = (): void =>
      wss.handleUpgrade(request, socket, head, (ws) => {
        options.onConnection?.({ from, outcome: { dialect } });
        open++;
        ws.on('close', () => open--);
        const ctx: SessionContext = {
          servedModels: options.models,
          latency,
          references: openai ? openaiReferences! : vllmReferences!,
          openSessions: () => open,
          emptyDeltas: options.emptyDeltas,
          maxAudioBytes: options.maxAudioMb * 1024 * 1024,
          progressAcks: options.progressAcks,
          ingestSpeed: options.ingestSpeed,
          faults,
          socket: socket as Socket,
          speech,
        };
        const beta = String(betaHeader).includes('realtime=v1');
        if (simulated) simulated.open(ws, ctx, url);
        else if (dialect === 'vllm-omni-duplex') new DuplexSession(ws, ctx, model ?? VLLM_OMNI_DUPLEX.defaultModel);
        else if (dialect === 'openai-realtime') openRealtime(ws, ctx, model!, beta);
        else if (dialect === 'vllm') new VllmSession(ws, ctx);
        else new OpenAISession(ws, ctx, { beta, streamDuringSpeech: options.streamDuringSpeech, model: transcriptionModel(model, options.models) });
      });
    const slow = faultOf(faults, 'slow-accept');
    if (!slow) return accept();
    held.add(socket);
    socket.on('error', () => socket.destroy()); // until ws takes the socket, nothing else listens for its errors
    const timer = setTimeout(() => {
      held.delete(socket);
      accept();
    }, slow.ms);
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

/** The samples indexed at each dialect's rate. Only the indexes are kept, not the samples' decoded audio. */
function indexReferences(samples: readonly Sample[]): Promise<ReferenceIndex[]> {
  return Promise.all([VLLM_RATE, OPENAI_RATE].map(async (rate) => new ReferenceIndex(await buildReferences(samples, rate))));
}

function refuse(socket: Duplex, status: number, body: object): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** The model an OpenAI transcription session starts with: the one the connection's `?model=` asked for, else the first OpenAI model served. */
function transcriptionModel(asked: string | null, served: readonly string[]): string {
  if (asked !== null && served.includes(asked)) return asked;
  return served.find((m) => OPENAI_MODELS.includes(m)) ?? served[0] ?? OPENAI_MODELS[0]!;
}
