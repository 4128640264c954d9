import { dialectDescriptor } from '../descriptor.js';
import { deepgramDialect } from './client.js';
import { DEEPGRAM } from './spec.js';

export const deepgram = dialectDescriptor(DEEPGRAM, {
  create: ({ model, language, turnDetection, diarize }) =>
    deepgramDialect({ model, turnDetection, ...(language !== undefined ? { language } : {}), ...(diarize ? { diarize } : {}) }),
  // Endpointing is on unless the query turns it off: then the server ends utterances.
  turnDetectionOf: ({ url }) => (url.searchParams.get('endpointing') === 'false' ? 'client' : 'server'),
});
