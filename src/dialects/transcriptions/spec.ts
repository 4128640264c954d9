import type { DialectSpec } from '../spec.js';

/** vLLM's `POST /v1/audio/transcriptions` (Whisper large-v3 by default). */
export const VLLM_TRANSCRIPTIONS = {
  name: 'vllm-transcriptions',
  task: 'batch_stt',
  transport: 'http',
  auth: 'bearer',
  defaultModel: 'openai/whisper-large-v3',
} as const satisfies DialectSpec;

/** OpenAI's `POST /v1/audio/transcriptions`. */
export const OPENAI_TRANSCRIPTIONS = {
  name: 'openai-transcriptions',
  task: 'batch_stt',
  transport: 'http',
  auth: 'bearer',
  defaultModel: 'gpt-4o-transcribe',
  keyEnv: 'OPENAI_API_KEY',
} as const satisfies DialectSpec;
