import { dialectDescriptor } from '../descriptor.js';
import { deepgramAuraDialect } from './client.js';
import { DEEPGRAM_AURA } from './spec.js';

export const deepgramAura = dialectDescriptor(DEEPGRAM_AURA, { create: (settings) => deepgramAuraDialect(settings.speech) });
