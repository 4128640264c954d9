import { dialectDescriptor } from '../descriptor.js';
import { livepeerDialect } from './client.js';
import { LIVEPEER } from './spec.js';

export const livepeer = dialectDescriptor(LIVEPEER, {
  create: (settings) => livepeerDialect({ model: settings.model, ...(settings.language !== undefined ? { language: settings.language } : {}) }),
  limits: {
    oneInputPerSession: ': the end of its audio (the Trickle channel closed) ends the session',
    clientTurnsOnly: "Livepeer's app transcribes until the client ends the audio (no server VAD)",
  },
});
