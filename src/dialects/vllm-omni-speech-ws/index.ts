import { dialectDescriptor } from '../descriptor.js';
import { vllmOmniSpeechWsDialect } from './client.js';
import { VLLM_OMNI_SPEECH_WS } from './spec.js';

export const vllmOmniSpeechWs = dialectDescriptor(VLLM_OMNI_SPEECH_WS, { create: (settings) => vllmOmniSpeechWsDialect(settings.speech) });
