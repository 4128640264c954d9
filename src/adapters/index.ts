import type { ProtocolAdapter } from './adapter.js';
import { openaiAdapter, type OpenAISettings } from './openai.js';
import { vllmAdapter } from './vllm.js';

/** Every wire dialect voxbench speaks, by its `--protocol` name. */
export const PROTOCOLS = ['vllm', 'openai', 'openai-beta'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export type AdapterSettings = Omit<OpenAISettings, 'beta'>;

export function createAdapter(protocol: Protocol, settings: AdapterSettings): ProtocolAdapter {
  switch (protocol) {
    case 'vllm':
      return vllmAdapter(settings);
    case 'openai':
    case 'openai-beta':
      return openaiAdapter({ ...settings, beta: protocol === 'openai-beta' });
  }
}
