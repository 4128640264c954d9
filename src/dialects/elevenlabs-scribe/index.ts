import { dialectDescriptor } from '../descriptor.js';
import { elevenlabsScribeDialect } from './client.js';
import { ELEVENLABS_SCRIBE } from './spec.js';

/** Manual commits by default; `--turn-detection server_vad` asks for Scribe's VAD commits (`commit_strategy=vad`). */
export const elevenlabsScribe = dialectDescriptor(ELEVENLABS_SCRIBE, {
  create: elevenlabsScribeDialect,
  turnDetectionOf: ({ url }) => (url.searchParams.get('commit_strategy') === 'vad' ? 'server' : 'client'),
});
