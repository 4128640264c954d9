import type { Task, TurnDetection } from '../timeline/types.js';
import type { Dialect } from './dialect.js';
import type { DialectDescriptor, DialectSettings } from './descriptor.js';
import type { Upgrade } from './spec.js';
import { assemblyai } from './assemblyai/index.js';
import { cartesia } from './cartesia/index.js';
import { deepgram } from './deepgram/index.js';
import { deepgramAura } from './deepgram-aura/index.js';
import { elevenlabs } from './elevenlabs/index.js';
import { elevenlabsScribe } from './elevenlabs-scribe/index.js';
import { livepeer } from './livepeer/index.js';
import { openai, openaiBeta } from './openai/index.js';
import { openaiRealtime } from './openai-realtime/index.js';
import { openaiRealtimeTts, openaiRealtimeTtsBeta } from './openai-realtime-tts/index.js';
import { openaiSpeech } from './openai-speech/index.js';
import { speechmatics } from './speechmatics/index.js';
import { openaiTranscriptions, vllmTranscriptions } from './transcriptions/index.js';
import { vllm } from './vllm/index.js';
import { vllmOmniDuplex } from './vllm-omni-duplex/index.js';
import { vllmOmniSpeech } from './vllm-omni-speech/index.js';
import { vllmOmniSpeechWs } from './vllm-omni-speech-ws/index.js';

export type { DialectSettings } from './descriptor.js';

/**
 * The registry: every wire dialect voxbench speaks, one line each, in the order
 * `--protocol` lists them. Everything else that names dialects derives from it
 * (the choices and help, default models, auth headers, proxy routing, limits).
 */
const REGISTRY = [
  vllm,
  openai,
  openaiBeta,
  deepgram,
  assemblyai,
  elevenlabsScribe,
  speechmatics,
  vllmTranscriptions,
  openaiTranscriptions,
  vllmOmniDuplex,
  openaiRealtime,
  // Streamed; with --stream-format none the HTTP ones are batch_tts (the dialect's own `task` says which).
  vllmOmniSpeech,
  openaiSpeech,
  vllmOmniSpeechWs,
  openaiRealtimeTts,
  openaiRealtimeTtsBeta,
  elevenlabs,
  deepgramAura,
  cartesia,
  livepeer,
] as const satisfies readonly DialectDescriptor[];

/**
 * The dialects the proxy tells on the shared `/v1/realtime` at the upgrade, asked in this
 * order (`claims`): the first to claim it is the connection's, until its client's first
 * messages settle another (`unsettled`). vLLM's claims any.
 */
const SHARED_PATH = [vllmOmniDuplex, openaiBeta, openai, vllm] as const satisfies readonly DialectDescriptor[];

export type Protocol = (typeof REGISTRY)[number]['name'];
export const PROTOCOLS: Protocol[] = REGISTRY.map((d) => d.name);
/** The dialect spoken when none is named: vLLM's realtime transcription. */
export const DEFAULT_PROTOCOL = vllm.name;
const BY_NAME = new Map<Protocol, DialectDescriptor>(REGISTRY.map((d) => [d.name, d]));

/** A dialect's descriptor: its spec (task, transport, path, auth, default model), codec factory and limits. */
export const descriptorOf = (protocol: Protocol): DialectDescriptor => BY_NAME.get(protocol)!;

/** Every dialect, by its `--protocol` name, with the task it serves. */
export const DIALECTS = Object.fromEntries(REGISTRY.map((d) => [d.name, d.task])) as Record<Protocol, Task>;

/** The dialects `voxbench proxy` meters: every WebSocket one (each reads the client's frames). */
export const METERED_PROTOCOLS: readonly Protocol[] = REGISTRY.filter((d) => d.transport === 'websocket').map((d) => d.name);

/** The dialects spoken over HTTP, one request per input (their targets are http:// URLs); the rest speak WebSocket. */
export const isHttpProtocol = (protocol: Protocol): boolean => descriptorOf(protocol).transport === 'http';

/** The dialects whose `--target` is an http:// URL: the HTTP ones, and those whose session opens over HTTP (`spec.target`). */
export const isHttpTarget = (protocol: Protocol): boolean => isHttpProtocol(protocol) || descriptorOf(protocol).target === 'http';

/** Whether a dialect's server can end inputs itself (`--turn-detection server_vad`): streaming transcription over WebSocket unless its limits say not, and speech to speech. */
export const takesServerTurns = (protocol: Protocol): boolean =>
  DIALECTS[protocol] === 's2s' || (DIALECTS[protocol] === 'stt' && !isHttpProtocol(protocol) && descriptorOf(protocol).limits?.clientTurnsOnly === undefined);

/** The variable every dialect falls back to for its API key, after its own (`keyEnv`). */
export const FALLBACK_KEY_ENV = 'VOXBENCH_API_KEY';

/** The dialects' own API key variables, each once, in registry order. */
export const KEY_ENVS: readonly string[] = [...new Set(REGISTRY.flatMap((d) => (d.keyEnv !== undefined ? [d.keyEnv] : [])))];

/** The dialects with a WebSocket path of their own (`spec.path`): the proxy tells them by it. */
export const OWN_PATHS: ReadonlyArray<{ protocol: Protocol; path: string }> = REGISTRY.flatMap((d) => {
  const { path } = d as DialectDescriptor;
  return path !== undefined ? [{ protocol: d.name, path }] : [];
});

/** The dialect an upgrade to the shared path speaks, as the proxy tells it: the first in `SHARED_PATH` to claim it. */
export function sharedPathProtocol(upgrade: Upgrade): Protocol {
  return SHARED_PATH.find((d) => d.claims?.(upgrade))!.name;
}

/** Where an upgrade leaves a dialect open, those its client's first messages may settle on instead (`DialectDescriptor.unsettled`). */
export function unsettledOf(protocol: Protocol, upgrade: Upgrade): { conversation: Protocol; speech: Protocol } | undefined {
  // The names are registry dialects': a descriptor names them by their specs.
  return descriptorOf(protocol).unsettled?.(upgrade) as { conversation: Protocol; speech: Protocol } | undefined;
}

/** Who ends turns on a connection, where its upgrade says (`DialectDescriptor.turnDetectionOf`); undefined where its client's configuration will. */
export function upgradeTurnDetection(protocol: Protocol, upgrade: Upgrade): TurnDetection | undefined {
  return descriptorOf(protocol).turnDetectionOf?.(upgrade);
}

export function createDialect(protocol: Protocol, settings: DialectSettings): Dialect {
  return descriptorOf(protocol).create(settings);
}
