import type { DialectSpec } from '../spec.js';

/** OpenAI Realtime conversations (speech to speech) on `/v1/realtime`. */
export const OPENAI_REALTIME = {
  name: 'openai-realtime',
  task: 's2s',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: 'gpt-realtime',
  keyEnv: 'OPENAI_API_KEY',
} as const satisfies DialectSpec;
