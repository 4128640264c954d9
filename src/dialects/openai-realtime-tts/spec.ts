import type { DialectSpec } from '../spec.js';

/** The model OpenAI Realtime speaks with, in both shapes. */
const GPT_REALTIME = 'gpt-realtime';

/** OpenAI Realtime speaks PCM16 at 24 kHz only. */
const LIMITS = { outputRate: 24_000 } as const;

/** OpenAI Realtime as a speech generator (GA shape) on `/v1/realtime`. */
export const OPENAI_REALTIME_TTS = {
  name: 'openai-realtime-tts',
  task: 'tts',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: GPT_REALTIME,
  keyEnv: 'OPENAI_API_KEY',
  limits: LIMITS,
} as const satisfies DialectSpec;

/** OpenAI Realtime as a speech generator, beta shape. */
export const OPENAI_REALTIME_TTS_BETA = {
  name: 'openai-realtime-tts-beta',
  task: 'tts',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: GPT_REALTIME,
  keyEnv: 'OPENAI_API_KEY',
  limits: LIMITS,
} as const satisfies DialectSpec;
