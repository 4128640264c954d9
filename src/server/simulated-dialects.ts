import { simulatedCartesia } from '../dialects/cartesia/simulated.js';
import { simulatedDeepgramAura } from '../dialects/deepgram-aura/simulated.js';
import { simulatedElevenLabs } from '../dialects/elevenlabs/simulated.js';
import { simulatedVllmOmniSpeechWs } from '../dialects/vllm-omni-speech-ws/simulated.js';
import { pathPattern } from '../dialects/spec.js';
import type { SimulatedDialect } from './simulated-dialect.js';

/**
 * The simulated server's registry: the dialects it serves on a WebSocket path of their
 * own, one line each. (OpenAI Realtime's `/v1/realtime`, shared by vLLM, OpenAI and
 * vLLM-Omni's duplex, and the HTTP endpoints are routed in server.ts.)
 */
const SIMULATED = [simulatedVllmOmniSpeechWs, simulatedElevenLabs, simulatedDeepgramAura, simulatedCartesia] as const satisfies readonly SimulatedDialect[];

export type SimulatedName = (typeof SIMULATED)[number]['name'];

const ROUTES = SIMULATED.map((dialect) => ({ dialect, path: pathPattern(dialect.path, true) }));

/** The dialect whose own path this is, if any. */
export function simulatedDialectAt(path: string): (typeof SIMULATED)[number] | undefined {
  return ROUTES.find((route) => route.path.test(path))?.dialect;
}
