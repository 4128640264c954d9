import type { DialectSpec } from '../spec.js';

/** Cartesia's `/tts/websocket`. */
export const CARTESIA = {
  name: 'cartesia',
  task: 'tts',
  transport: 'websocket',
  path: '/tts/websocket',
  auth: 'bearer',
  defaultModel: 'sonic-3',
  limits: { oneInputPerSession: ' (one context)' },
} as const satisfies DialectSpec;
