import type { DialectSpec } from '../spec.js';

/** Deepgram Aura's `/v1/speak` WebSocket; the key as `Authorization: Token`. */
export const DEEPGRAM_AURA = {
  name: 'deepgram-aura',
  task: 'tts',
  transport: 'websocket',
  path: '/v1/speak',
  auth: 'token',
  defaultModel: 'aura-2-thalia-en',
  keyEnv: 'DEEPGRAM_API_KEY',
} as const satisfies DialectSpec;
