import type { DialectSpec } from '../spec.js';

/** The batch endpoints, and whether each transcribes or translates. */
export const TRANSCRIPTION_PATHS: Readonly<Record<string, 'transcribe' | 'translate'>> = {
  '/v1/audio/transcriptions': 'transcribe',
  '/v1/audio/translations': 'translate',
};

/** The rate a batch server hears recordings at (Whisper's). */
export const TRANSCRIPTION_RATE = 16_000;

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
