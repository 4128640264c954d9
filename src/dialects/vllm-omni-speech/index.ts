import { dialectDescriptor } from '../descriptor.js';
import { vllmOmniSpeechDialect } from './client.js';
import { VLLM_OMNI_SPEECH } from './spec.js';

export const vllmOmniSpeech = dialectDescriptor(VLLM_OMNI_SPEECH, { create: (settings) => vllmOmniSpeechDialect(settings.speech) });
