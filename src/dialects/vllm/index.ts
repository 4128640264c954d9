import { dialectDescriptor } from '../descriptor.js';
import { vllmDialect } from './client.js';
import { VLLM } from './spec.js';

/** On the shared `/v1/realtime`, vLLM's is any upgrade OpenAI's does not claim. */
export const vllm = dialectDescriptor(VLLM, {
  create: vllmDialect,
  claims: () => true,
});
