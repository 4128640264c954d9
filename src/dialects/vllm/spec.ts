import type { DialectSpec } from '../spec.js';

/** vLLM's realtime transcription on `/v1/realtime` (the Voxtral realtime model by default). */
export const VLLM = {
  name: 'vllm',
  task: 'stt',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: 'mistralai/Voxtral-Mini-4B-Realtime-2602',
} as const satisfies DialectSpec;
