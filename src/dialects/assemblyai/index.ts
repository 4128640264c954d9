import { dialectDescriptor } from '../descriptor.js';
import { assemblyaiDialect } from './client.js';
import { ASSEMBLYAI } from './spec.js';

export const assemblyai = dialectDescriptor(ASSEMBLYAI, {
  create: assemblyaiDialect,
  turnDetectionOf: () => 'server',
});
