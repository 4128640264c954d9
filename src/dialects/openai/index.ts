import { dialectDescriptor } from '../descriptor.js';
import { openaiDialect } from './client.js';
import { OPENAI, OPENAI_BETA } from './spec.js';

export const openai = dialectDescriptor(OPENAI, { create: (settings) => openaiDialect({ ...settings, beta: false }) });
export const openaiBeta = dialectDescriptor(OPENAI_BETA, { create: (settings) => openaiDialect({ ...settings, beta: true }) });
