import type { DialectSpec } from '../spec.js';

/**
 * Speechmatics' real-time API v2 (`wss://eu2.rt.speechmatics.com/v2`, the default of its
 * SDKs); the key as `Authorization: Bearer` (its SDK's `?jwt=` also reaches the built-in
 * server), the model its `transcription_config.model`.
 */
export const SPEECHMATICS = {
  name: 'speechmatics',
  task: 'stt',
  transport: 'websocket',
  path: '/v2',
  auth: 'bearer',
  keyQuery: 'jwt',
  defaultModel: 'enhanced',
  keyEnv: 'SPEECHMATICS_API_KEY',
  limits: { clientTurnsOnly: "voxbench ends Speechmatics' utterances itself (ForceEndOfUtterance); its end-of-utterance silence trigger is not configured" },
} as const satisfies DialectSpec;
