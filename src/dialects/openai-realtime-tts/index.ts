import { dialectDescriptor, type DialectLimits } from '../descriptor.js';
import { openaiRealtimeTtsDialect } from './client.js';
import { OPENAI_REALTIME_TTS, OPENAI_REALTIME_TTS_BETA } from './spec.js';

/** OpenAI Realtime speaks PCM16 at 24 kHz only. */
const limits: DialectLimits = { outputRate: 24_000 };

export const openaiRealtimeTts = dialectDescriptor(OPENAI_REALTIME_TTS, {
  create: (settings) => openaiRealtimeTtsDialect({ ...settings.speech, beta: false }),
  limits,
});
export const openaiRealtimeTtsBeta = dialectDescriptor(OPENAI_REALTIME_TTS_BETA, {
  create: (settings) => openaiRealtimeTtsDialect({ ...settings.speech, beta: true }),
  limits,
});
