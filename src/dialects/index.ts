import type { Task, TurnDetection } from '../timeline/types.js';
import type { Dialect } from './dialect.js';
import type { DialectDescriptor, DialectSettings } from './descriptor.js';
import type { DialectSpec, Upgrade } from './spec.js';
import { ASSEMBLYAI } from './assemblyai/spec.js';
import { CARTESIA } from './cartesia/spec.js';
import { DEEPGRAM } from './deepgram/spec.js';
import { DEEPGRAM_AURA } from './deepgram-aura/spec.js';
import { ELEVENLABS } from './elevenlabs/spec.js';
import { ELEVENLABS_SCRIBE } from './elevenlabs-scribe/spec.js';
import { LIVEPEER } from './livepeer/spec.js';
import { OPENAI, OPENAI_BETA } from './openai/spec.js';
import { OPENAI_REALTIME } from './openai-realtime/spec.js';
import { OPENAI_REALTIME_TTS, OPENAI_REALTIME_TTS_BETA } from './openai-realtime-tts/spec.js';
import { OPENAI_SPEECH } from './openai-speech/spec.js';
import { SPEECHMATICS } from './speechmatics/spec.js';
import { OPENAI_TRANSCRIPTIONS, VLLM_TRANSCRIPTIONS } from './transcriptions/spec.js';
import { VLLM } from './vllm/spec.js';
import { VLLM_OMNI_DUPLEX } from './vllm-omni-duplex/spec.js';
import { VLLM_OMNI_SPEECH } from './vllm-omni-speech/spec.js';
import { VLLM_OMNI_SPEECH_WS } from './vllm-omni-speech-ws/spec.js';

export type { DialectSettings } from './descriptor.js';

/** A dialect as the registry lists it: its spec, read at once, and its client descriptor's module, loaded when a run or the proxy speaks it. */
interface Entry<S extends DialectSpec> {
  readonly spec: S;
  readonly load: () => Promise<DialectDescriptor>;
}
const entry = <const S extends DialectSpec>(spec: S, load: () => Promise<DialectDescriptor>): Entry<S> => ({ spec, load });

/**
 * The registry: every wire dialect voxbench speaks, one line each, in the order
 * `--protocol` lists them. Everything else that names dialects derives from it
 * (the choices and help, default models, auth headers, proxy routing, limits).
 * A dialect's client is loaded only when it is spoken (`loadDialects`): the twenty
 * clients are about 50 modules, most of a command's start that names one or none.
 */
const REGISTRY = [
  entry(VLLM, async () => (await import('./vllm/index.js')).vllm),
  entry(OPENAI, async () => (await import('./openai/index.js')).openai),
  entry(OPENAI_BETA, async () => (await import('./openai/index.js')).openaiBeta),
  entry(DEEPGRAM, async () => (await import('./deepgram/index.js')).deepgram),
  entry(ASSEMBLYAI, async () => (await import('./assemblyai/index.js')).assemblyai),
  entry(ELEVENLABS_SCRIBE, async () => (await import('./elevenlabs-scribe/index.js')).elevenlabsScribe),
  entry(SPEECHMATICS, async () => (await import('./speechmatics/index.js')).speechmatics),
  entry(VLLM_TRANSCRIPTIONS, async () => (await import('./transcriptions/index.js')).vllmTranscriptions),
  entry(OPENAI_TRANSCRIPTIONS, async () => (await import('./transcriptions/index.js')).openaiTranscriptions),
  entry(VLLM_OMNI_DUPLEX, async () => (await import('./vllm-omni-duplex/index.js')).vllmOmniDuplex),
  entry(OPENAI_REALTIME, async () => (await import('./openai-realtime/index.js')).openaiRealtime),
  // Streamed; with --stream-format none the HTTP ones are batch_tts (the dialect's own `task` says which).
  entry(VLLM_OMNI_SPEECH, async () => (await import('./vllm-omni-speech/index.js')).vllmOmniSpeech),
  entry(OPENAI_SPEECH, async () => (await import('./openai-speech/index.js')).openaiSpeech),
  entry(VLLM_OMNI_SPEECH_WS, async () => (await import('./vllm-omni-speech-ws/index.js')).vllmOmniSpeechWs),
  entry(OPENAI_REALTIME_TTS, async () => (await import('./openai-realtime-tts/index.js')).openaiRealtimeTts),
  entry(OPENAI_REALTIME_TTS_BETA, async () => (await import('./openai-realtime-tts/index.js')).openaiRealtimeTtsBeta),
  entry(ELEVENLABS, async () => (await import('./elevenlabs/index.js')).elevenlabs),
  entry(DEEPGRAM_AURA, async () => (await import('./deepgram-aura/index.js')).deepgramAura),
  entry(CARTESIA, async () => (await import('./cartesia/index.js')).cartesia),
  entry(LIVEPEER, async () => (await import('./livepeer/index.js')).livepeer),
] as const;

/**
 * The dialects the proxy tells on the shared `/v1/realtime` at the upgrade, asked in this
 * order (`claims`): the first to claim it is the connection's, until its client's first
 * messages settle another (`unsettled`). vLLM's claims any.
 */
const SHARED_PATH = [VLLM_OMNI_DUPLEX.name, OPENAI_BETA.name, OPENAI.name, VLLM.name] as const;

export type Protocol = (typeof REGISTRY)[number]['spec']['name'];
export const PROTOCOLS: Protocol[] = REGISTRY.map((d) => d.spec.name);
/** The dialect spoken when none is named: vLLM's realtime transcription. */
export const DEFAULT_PROTOCOL = VLLM.name;
const BY_NAME = new Map<Protocol, Entry<DialectSpec>>(REGISTRY.map((d) => [d.spec.name, d]));
const LOADED = new Map<Protocol, DialectDescriptor>();

/** A dialect's spec: task, transport, path, auth, default model, key variable and limits. */
export const specOf = (protocol: Protocol): DialectSpec => BY_NAME.get(protocol)!.spec;

/**
 * Loads the clients of `protocols` (every dialect's when omitted), which `createDialect` and the proxy's
 * upgrade checks need: a run loads its own, the proxy every one, the library entry every one.
 */
export async function loadDialects(protocols: readonly Protocol[] = PROTOCOLS): Promise<void> {
  await Promise.all(protocols.filter((p) => !LOADED.has(p)).map(async (p) => LOADED.set(p, await BY_NAME.get(p)!.load())));
}

/** A dialect's client descriptor, loaded before by `loadDialects`. */
function descriptorOf(protocol: Protocol): DialectDescriptor {
  const descriptor = LOADED.get(protocol);
  if (!descriptor) throw new Error(`the ${protocol} dialect's client is not loaded: await loadDialects() before creating it`);
  return descriptor;
}

/** Every dialect, by its `--protocol` name, with the task it serves. */
export const DIALECTS = Object.fromEntries(REGISTRY.map(({ spec }) => [spec.name, spec.task])) as Record<Protocol, Task>;

/** The dialects `voxbench proxy` meters: every WebSocket one (each reads the client's frames). */
export const METERED_PROTOCOLS: readonly Protocol[] = REGISTRY.filter(({ spec }) => spec.transport === 'websocket').map(({ spec }) => spec.name);

/** The dialects spoken over HTTP, one request per input (their targets are http:// URLs); the rest speak WebSocket. */
export const isHttpProtocol = (protocol: Protocol): boolean => specOf(protocol).transport === 'http';

/** The dialects whose `--target` is an http:// URL: the HTTP ones, and those whose session opens over HTTP (`spec.target`). */
export const isHttpTarget = (protocol: Protocol): boolean => isHttpProtocol(protocol) || specOf(protocol).target === 'http';

/** Whether a dialect's server can end inputs itself (`--turn-detection server_vad`): streaming transcription over WebSocket unless its limits say not, and speech to speech. */
export const takesServerTurns = (protocol: Protocol): boolean =>
  DIALECTS[protocol] === 's2s' || (DIALECTS[protocol] === 'stt' && !isHttpProtocol(protocol) && specOf(protocol).limits?.clientTurnsOnly === undefined);

/** The variable every dialect falls back to for its API key, after its own (`keyEnv`). */
export const FALLBACK_KEY_ENV = 'VOXBENCH_API_KEY';

/** The dialects' own API key variables, each once, in registry order. */
export const KEY_ENVS: readonly string[] = [...new Set(REGISTRY.flatMap(({ spec }) => (spec as DialectSpec).keyEnv ?? []))];

/** The dialects with a WebSocket path of their own (`spec.path`): the proxy tells them by it. */
export const OWN_PATHS: ReadonlyArray<{ protocol: Protocol; path: string }> = REGISTRY.flatMap(({ spec }) => {
  const { path } = spec as DialectSpec;
  return path !== undefined ? [{ protocol: spec.name, path }] : [];
});

/** The dialect an upgrade to the shared path speaks, as the proxy tells it: the first in `SHARED_PATH` to claim it. */
export function sharedPathProtocol(upgrade: Upgrade): Protocol {
  return SHARED_PATH.find((p) => descriptorOf(p).claims?.(upgrade))!;
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

/** A dialect's codec and completion policy with these settings; its client is loaded before (`loadDialects`). */
export function createDialect(protocol: Protocol, settings: DialectSettings): Dialect {
  return descriptorOf(protocol).create(settings);
}
