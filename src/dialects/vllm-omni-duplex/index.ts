import { dialectDescriptor } from '../descriptor.js';
import { vllmOmniDuplexDialect } from './client.js';
import { asksDuplex, VLLM_OMNI_DUPLEX } from './spec.js';

export const vllmOmniDuplex = dialectDescriptor(VLLM_OMNI_DUPLEX, { create: vllmOmniDuplexDialect, claims: asksDuplex });
