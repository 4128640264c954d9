import { simulatedAssemblyai } from '../dialects/assemblyai/simulated.js';
import { simulatedCartesia } from '../dialects/cartesia/simulated.js';
import { simulatedDeepgram } from '../dialects/deepgram/simulated.js';
import { simulatedDeepgramAura } from '../dialects/deepgram-aura/simulated.js';
import { simulatedElevenLabs } from '../dialects/elevenlabs/simulated.js';
import { simulatedElevenLabsScribe } from '../dialects/elevenlabs-scribe/simulated.js';
import { simulatedLivepeer } from '../dialects/livepeer/simulated.js';
import { simulatedOpenai } from '../dialects/openai/simulated.js';
import { simulatedOpenaiRealtime } from '../dialects/openai-realtime/simulated.js';
import { simulatedSpeechmatics } from '../dialects/speechmatics/simulated.js';
import { simulatedVllm } from '../dialects/vllm/simulated.js';
import { simulatedVllmOmniDuplex } from '../dialects/vllm-omni-duplex/simulated.js';
import { simulatedVllmOmniSpeechWs } from '../dialects/vllm-omni-speech-ws/simulated.js';
import { pathPattern, type Upgrade } from '../dialects/spec.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext, SimulatedDialect } from './simulated-dialect.js';

/** OpenAI Realtime's path, which vLLM, OpenAI and vLLM-Omni's duplex share: each upgrade's query and headers tell them apart. */
export const REALTIME_PATH = '/v1/realtime';

/**
 * The simulated server's registry: the WebSocket dialects it serves, one line each. A
 * dialect with a path of its own is told by it; those on the shared path are asked in
 * this order (`onSharedPath`), the first yes winning: vLLM's takes any upgrade left.
 * (The HTTP endpoints are routed in server.ts.)
 */
const SIMULATED = [
  simulatedVllmOmniSpeechWs,
  simulatedElevenLabs,
  simulatedElevenLabsScribe,
  simulatedDeepgramAura,
  simulatedDeepgram,
  simulatedCartesia,
  simulatedAssemblyai,
  simulatedLivepeer,
  simulatedSpeechmatics,
  simulatedVllmOmniDuplex,
  simulatedOpenaiRealtime,
  simulatedOpenai,
  simulatedVllm,
] as const satisfies readonly SimulatedDialect[];

export type SimulatedName = (typeof SIMULATED)[number]['name'];
type Simulated = SimulatedDialect & { name: SimulatedName };

const DIALECTS: readonly Simulated[] = SIMULATED;
const ROUTES = DIALECTS.flatMap((dialect) =>
  [dialect.path, dialect.aliasPath].flatMap((path) => (path !== undefined ? [{ dialect, path: pathPattern(path, true) }] : [])),
);

/** The dialect an upgrade speaks: the one whose own path it is, or on the shared path the first to claim it; undefined on any other path. */
export function simulatedDialectOf(upgrade: Upgrade): Simulated | undefined {
  const { pathname } = upgrade.url;
  const own = ROUTES.find((route) => route.path.test(pathname))?.dialect;
  if (own !== undefined || pathname !== REALTIME_PATH) return own;
  return DIALECTS.find((dialect) => dialect.onSharedPath?.(upgrade));
}

/** Serves an HTTP request a dialect has routes of its own for (`SimulatedDialect.request`); whether one did. */
export function simulatedRequest(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): boolean {
  return DIALECTS.some((dialect) => dialect.request?.(req, res, ctx) === true);
}

/** The PCM rates the dialects hear audio at, each once: the server indexes its references at each. */
export const INPUT_RATES: readonly number[] = [...new Set(DIALECTS.flatMap((dialect) => (dialect.inputRate !== undefined ? [dialect.inputRate] : [])))];
