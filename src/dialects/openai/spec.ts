import type { DialectSpec } from '../spec.js';

/** OpenAI's transcription model, in both shapes. */
const GPT_4O_TRANSCRIBE = 'gpt-4o-transcribe';

/** OpenAI Realtime transcription (GA shape) on `/v1/realtime`, a path it shares with conversations and speech generation. */
export const OPENAI = {
  name: 'openai',
  task: 'stt',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: GPT_4O_TRANSCRIBE,
} as const satisfies DialectSpec;

/** OpenAI Realtime transcription in the beta shape (`OpenAI-Beta: realtime=v1`). */
export const OPENAI_BETA = {
  name: 'openai-beta',
  task: 'stt',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: GPT_4O_TRANSCRIBE,
} as const satisfies DialectSpec;
