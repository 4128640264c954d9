import type { DialectSpec, Upgrade } from '../spec.js';

/** vLLM-Omni full duplex, `/v1/realtime?duplex=1` (the simulated server also serves its `/v1/duplex` alias). */
export const VLLM_OMNI_DUPLEX = {
  name: 'vllm-omni-duplex',
  task: 's2s',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: 'openbmb/MiniCPM-o-4_5',
} as const satisfies DialectSpec;

/** Whether an upgrade to the shared `/v1/realtime` asks for vLLM-Omni's duplex (`?duplex=1`). */
export const asksDuplex = ({ url }: Pick<Upgrade, 'url'>): boolean => ['1', 'true', 'on'].includes(url.searchParams.get('duplex') ?? '');
