import { dialectDescriptor } from '../descriptor.js';
import { openaiRealtimeDialect } from './client.js';
import { OPENAI_REALTIME } from './spec.js';

export const openaiRealtime = dialectDescriptor(OPENAI_REALTIME, { create: openaiRealtimeDialect });
