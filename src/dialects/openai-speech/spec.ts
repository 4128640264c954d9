import type { DialectSpec } from '../spec.js';

/** OpenAI's `POST /v1/audio/speech`. */
export const OPENAI_SPEECH = {
  name: 'openai-speech',
  task: 'tts',
  transport: 'http',
  auth: 'bearer',
  defaultModel: 'gpt-4o-mini-tts',
  keyEnv: 'OPENAI_API_KEY',
} as const satisfies DialectSpec;
