import { dialectDescriptor } from '../descriptor.js';
import { openaiRealtimeTtsDialect } from './client.js';
import { OPENAI_REALTIME_TTS, OPENAI_REALTIME_TTS_BETA } from './spec.js';

export const openaiRealtimeTts = dialectDescriptor(OPENAI_REALTIME_TTS, {
  create: (settings) => openaiRealtimeTtsDialect({ ...settings.speech, beta: false }),
});
export const openaiRealtimeTtsBeta = dialectDescriptor(OPENAI_REALTIME_TTS_BETA, {
  create: (settings) => openaiRealtimeTtsDialect({ ...settings.speech, beta: true }),
});
