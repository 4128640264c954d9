import { dialectDescriptor } from '../descriptor.js';
import { livepeerDialect } from './client.js';
import { LIVEPEER } from './spec.js';

export const livepeer = dialectDescriptor(LIVEPEER, {
  create: (settings) => livepeerDialect({ model: settings.model, ...(settings.language !== undefined ? { language: settings.language } : {}) }),
});
