import { dialectDescriptor } from '../descriptor.js';
import { openaiSpeechDialect } from './client.js';
import { OPENAI_SPEECH } from './spec.js';

export const openaiSpeech = dialectDescriptor(OPENAI_SPEECH, { create: (settings) => openaiSpeechDialect(settings.speech) });
