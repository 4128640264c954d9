import type { DialectSpec } from '../spec.js';

/** The audio one binary message may carry; the service closes with 3007 otherwise. */
export const MESSAGE_MS = { min: 50, max: 1000 } as const;

/**
 * AssemblyAI Universal-Streaming v3 (`wss://streaming.assemblyai.com/v3/ws`): binary
 * PCM16 in, JSON `Turn`s out; the key in `Authorization` with no scheme.
 */
export const ASSEMBLYAI = {
  name: 'assemblyai',
  task: 'stt',
  transport: 'websocket',
  path: '/v3/ws',
  auth: 'plain',
  keyQuery: 'token',
  defaultModel: 'universal-streaming-english',
  keyEnv: 'ASSEMBLYAI_API_KEY',
  limits: { chunkMs: { ...MESSAGE_MS, why: ' (AssemblyAI closes the session with 3007 "Input duration violation" otherwise)' } },
} as const satisfies DialectSpec;
