import type { DialectSpec } from '../spec.js';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../vllm-omni-speech/spec.js';

/** vLLM-Omni's streaming-text speech WebSocket. */
export const VLLM_OMNI_SPEECH_WS = {
  name: 'vllm-omni-speech-ws',
  task: 'tts',
  transport: 'websocket',
  path: '/v1/audio/speech/stream',
  auth: 'bearer',
  defaultModel: DEFAULT_VLLM_OMNI_TTS_MODEL,
} as const satisfies DialectSpec;
