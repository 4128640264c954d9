import type { Task } from '../timeline/types.js';
import type { Dialect } from './dialect.js';
import { openaiDialect, type OpenAISettings } from './openai.js';
import { elevenlabsDialect } from './elevenlabs.js';
import { openaiRealtimeTtsDialect } from './openai-realtime-tts.js';
import { vllmOmniSpeechDialect } from './vllm-omni-speech-ws.js';
import { vllmDialect } from './vllm.js';

/** Every wire dialect voxbench speaks, by its `--protocol` name, with the task it serves. */
export const DIALECTS = {
  vllm: 'stt',
  openai: 'stt',
  'openai-beta': 'stt',
  'vllm-omni-speech-ws': 'tts',
  'openai-realtime-tts': 'tts',
  'openai-realtime-tts-beta': 'tts',
  elevenlabs: 'tts',
} as const satisfies Record<string, Task>;
export type Protocol = keyof typeof DIALECTS;
export const PROTOCOLS = Object.keys(DIALECTS) as Protocol[];

export type DialectSettings = Omit<OpenAISettings, 'beta'> & {
  /** Speech generation: the voice to speak with; each server's default when unset. */
  voice?: string;
};

export function createDialect(protocol: Protocol, settings: DialectSettings): Dialect {
  switch (protocol) {
    case 'vllm':
      return vllmDialect(settings);
    case 'openai':
    case 'openai-beta':
      return openaiDialect({ ...settings, beta: protocol === 'openai-beta' });
    case 'vllm-omni-speech-ws':
      return vllmOmniSpeechDialect(settings);
    case 'openai-realtime-tts':
    case 'openai-realtime-tts-beta':
      return openaiRealtimeTtsDialect({ ...settings, beta: protocol === 'openai-realtime-tts-beta' });
    case 'elevenlabs':
      return elevenlabsDialect(settings);
  }
}
