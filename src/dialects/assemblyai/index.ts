import { dialectDescriptor } from '../descriptor.js';
import { assemblyaiDialect } from './client.js';
import { ASSEMBLYAI, MESSAGE_MS } from './spec.js';

export const assemblyai = dialectDescriptor(ASSEMBLYAI, {
  create: assemblyaiDialect,
  turnDetectionOf: () => 'server',
  limits: { chunkMs: { ...MESSAGE_MS, why: ' (AssemblyAI closes the session with 3007 "Input duration violation" otherwise)' } },
});
