import { dialectDescriptor } from '../descriptor.js';
import { speechmaticsDialect } from './client.js';
import { SPEECHMATICS } from './spec.js';

export const speechmatics = dialectDescriptor(SPEECHMATICS, {
  create: speechmaticsDialect,
});
