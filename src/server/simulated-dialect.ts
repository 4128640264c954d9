import type { IncomingMessage, ServerResponse } from 'node:http';
import type WebSocket from 'ws';
import type { DialectSpec, Upgrade } from '../dialects/spec.js';
import type { FaultScenario } from './faults/faults.js';
import type { LatencyModel } from './models/latency-model.js';
import type { ReferenceIndex } from './models/recognizer.js';
import type { SpeakerErrors } from './models/speakers.js';
import type { SessionContext } from './sessions/session-context.js';

/** What a dialect's own HTTP requests get from the server. */
export interface RequestContext {
  apiKey?: string;
  pickFaults: () => FaultScenario;
}

/**
 * The simulated side of a WebSocket dialect: its shared spec (path, auth) and the
 * session that speaks it. It lives beside the dialect's client code but imports only
 * its spec and the server, never the client.
 */
export interface SimulatedDialect extends DialectSpec {
  /**
   * On OpenAI Realtime's shared path (`REALTIME_PATH`), whether an upgrade speaks this
   * dialect, by its query and headers; the simulated registry asks in its order and the
   * first yes wins. Omitted by a dialect served only on a path of its own.
   */
  readonly onSharedPath?: (upgrade: Upgrade) => boolean;
  /** A path of its own on the simulated server alone, besides the shared one (vLLM-Omni's `/v1/duplex` alias). */
  readonly aliasPath?: string;
  /** The PCM rate it hears its client's audio at: its session's references are indexed at it. Omitted by speech generators, which hear none. */
  readonly inputRate?: number;
  /**
   * HTTP requests of its own, beside its WebSocket (Livepeer's app: the session's
   * `POST /transcribe` and its Trickle channel): whether it served this one. `apiKey`: the key the server requires;
   * `pickFaults`: draws the faults of a request that opens a session.
   */
  readonly request?: (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => boolean;
  /** Serves one accepted connection; the upgrade's query carries its settings. */
  open(ws: WebSocket, ctx: SessionContext, upgrade: Upgrade): void;
}

/** What the host gives the batch transcription endpoint. */
export interface TranscriptionEndpointContext {
  servedModels: readonly string[];
  latency: LatencyModel;
  /** Known audio at the endpoint's rate (`TRANSCRIPTION_RATE`). */
  references: ReferenceIndex;
  /** The largest file accepted, bytes (vLLM: VLLM_MAX_AUDIO_CLIP_FILESIZE_MB); a larger one is answered 413. */
  maxAudioBytes: number;
  /** How wrong `diarized_json`'s speakers are. */
  speakers: SpeakerErrors;
  apiKey?: string;
  /** This request's faults. */
  pickFaults(): FaultScenario;
  /** WebSocket sessions open on the server, which share its capacity with requests. */
  openSessions(): number;
}

/** `POST /v1/audio/transcriptions` and `/translations`: a handler of requests, made once per server. */
export type TranscriptionEndpoint = (
  ctx: TranscriptionEndpointContext,
) => (req: IncomingMessage, res: ServerResponse, task: 'transcribe' | 'translate') => void;

/**
 * The dialects a simulated server speaks, handed to it by whoever starts it
 * (src/simulator/), so that the host imports no dialect's session.
 */
export interface SimulatedDialects {
  /** The WebSocket dialects, in the order the shared path asks them (see dialect-routes.ts). */
  readonly websocket: readonly SimulatedDialect[];
  readonly transcription: TranscriptionEndpoint;
}
