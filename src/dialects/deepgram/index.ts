import { dialectDescriptor } from '../descriptor.js';
import { deepgramDialect } from './client.js';
import { DEEPGRAM } from './spec.js';

export const deepgram = dialectDescriptor(DEEPGRAM, {
  create: ({ model, language, turnDetection }) => deepgramDialect({ model, turnDetection, ...(language !== undefined ? { language } : {}) }),
  // Endpointing is on unless the query turns it off: then the server ends utterances.
  turnDetectionOf: ({ url }) => (url.searchParams.get('endpointing') === 'false' ? 'client' : 'server'),
});
