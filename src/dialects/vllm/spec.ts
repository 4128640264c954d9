import type { DialectSpec } from '../spec.js';

/** vLLM's realtime transcription on `/v1/realtime` (the Voxtral realtime model by default). */
export const VLLM = {
  name: 'vllm',
  task: 'stt',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: 'mistralai/Voxtral-Mini-4B-Realtime-2602',
  limits: { clientTurnsOnly: "vLLM's /v1/realtime has no server VAD (the client commits)" },
} as const satisfies DialectSpec;
