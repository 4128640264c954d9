import type { DialectSpec } from '../spec.js';

/** The model vLLM-Omni's speech generation is benchmarked with by default, over HTTP and WebSocket. */
export const DEFAULT_VLLM_OMNI_TTS_MODEL = 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice';

/** vLLM-Omni's `POST /v1/audio/speech` (the path is OpenAI's too). */
export const VLLM_OMNI_SPEECH = {
  name: 'vllm-omni-speech',
  task: 'tts',
  transport: 'http',
  auth: 'bearer',
  defaultModel: DEFAULT_VLLM_OMNI_TTS_MODEL,
} as const satisfies DialectSpec;
