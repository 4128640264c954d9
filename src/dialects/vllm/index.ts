import { dialectDescriptor } from '../descriptor.js';
import { vllmDialect } from './client.js';
import { VLLM } from './spec.js';

export const vllm = dialectDescriptor(VLLM, { create: vllmDialect });
