import { dialectDescriptor } from '../descriptor.js';
import { cartesiaDialect } from './client.js';
import { CARTESIA } from './spec.js';

export const cartesia = dialectDescriptor(CARTESIA, {
  create: (settings) => cartesiaDialect(settings.speech),
});
