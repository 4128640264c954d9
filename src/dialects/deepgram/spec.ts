import type { DialectSpec } from '../spec.js';

/** Deepgram's live transcription on `/v1/listen` (the Nova models; Flux's `/v2/listen` is another dialect); the key as `Authorization: Token`. */
export const DEEPGRAM = {
  name: 'deepgram',
  task: 'stt',
  transport: 'websocket',
  path: '/v1/listen',
  auth: 'token',
  defaultModel: 'nova-3',
  keyEnv: 'DEEPGRAM_API_KEY',
} as const satisfies DialectSpec;
