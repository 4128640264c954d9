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
import { transcriptionEndpoint } from '../dialects/transcriptions/simulated.js';
import { simulatedVllm } from '../dialects/vllm/simulated.js';
import { simulatedVllmOmniDuplex } from '../dialects/vllm-omni-duplex/simulated.js';
import { simulatedVllmOmniSpeechWs } from '../dialects/vllm-omni-speech-ws/simulated.js';
import type { SimulatedDialect, SimulatedDialects } from '../server/simulated-dialect.js';

/**
 * The simulated server's registry, beside the client's (src/dialects/index.ts): the
 * WebSocket dialects it serves, one line each. A dialect with a path of its own is told
 * by it; those on the shared `/v1/realtime` are asked in this order, the first yes
 * winning: vLLM's takes any upgrade left. (Speech generation over HTTP is the host's own.)
 */
const WEBSOCKET = [
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

/** The name of a dialect the built-in server speaks over WebSocket. */
export type SimulatedName = (typeof WEBSOCKET)[number]['name'];

export const SIMULATED_DIALECTS: SimulatedDialects = { websocket: WEBSOCKET, transcription: transcriptionEndpoint };
