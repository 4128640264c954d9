import type { DialectSpec } from '../spec.js';

/**
 * Speechmatics' real-time API v2 (`wss://eu2.rt.speechmatics.com/v2`, the default of its
 * SDKs); the key as `Authorization: Bearer`, the model its `operating_point`.
 */
export const SPEECHMATICS = {
  name: 'speechmatics',
  task: 'stt',
  transport: 'websocket',
  path: '/v2',
  auth: 'bearer',
  defaultModel: 'enhanced',
  keyEnv: 'SPEECHMATICS_API_KEY',
} as const satisfies DialectSpec;
