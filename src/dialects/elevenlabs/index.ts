import { dialectDescriptor } from '../descriptor.js';
import { elevenlabsDialect } from './client.js';
import { ELEVENLABS } from './spec.js';

export const elevenlabs = dialectDescriptor(ELEVENLABS, {
  create: (settings) => elevenlabsDialect(settings.speech),
});
