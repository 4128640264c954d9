import { dialectDescriptor } from '../descriptor.js';
import { transcriptionsDialect } from './client.js';
import { OPENAI_TRANSCRIPTIONS, VLLM_TRANSCRIPTIONS } from './spec.js';

export const vllmTranscriptions = dialectDescriptor(VLLM_TRANSCRIPTIONS, { create: (settings) => transcriptionsDialect(VLLM_TRANSCRIPTIONS.name, settings) });
export const openaiTranscriptions = dialectDescriptor(OPENAI_TRANSCRIPTIONS, {
  create: (settings) => transcriptionsDialect(OPENAI_TRANSCRIPTIONS.name, settings),
});
