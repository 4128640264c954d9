import type { Task } from '../timeline/types.js';
import type { Dialect } from './dialect.js';
import { openaiDialect, type OpenAISettings } from './openai.js';
import { elevenlabsDialect } from './elevenlabs.js';
import { openaiRealtimeTtsDialect } from './openai-realtime-tts.js';
import { openaiSpeechDialect } from './openai-speech.js';
import type { SpeechSettings } from './speech-http.js';
import { vllmOmniSpeechDialect } from './vllm-omni-speech.js';
import { vllmOmniSpeechWsDialect } from './vllm-omni-speech-ws.js';
import { vllmDialect } from './vllm.js';

/** Every wire dialect voxbench speaks, by its `--protocol` name, with the task it serves. */
export const DIALECTS = {
  vllm: 'stt',
  openai: 'stt',
  'openai-beta': 'stt',
  // Streamed; with --stream-format none these are batch_tts (the dialect's own `task` says which).
  'vllm-omni-speech': 'tts',
  'openai-speech': 'tts',
  'vllm-omni-speech-ws': 'tts',
  'openai-realtime-tts': 'tts',
  'openai-realtime-tts-beta': 'tts',
  elevenlabs: 'tts',
} as const satisfies Record<string, Task>;
export type Protocol = keyof typeof DIALECTS;
export const PROTOCOLS = Object.keys(DIALECTS) as Protocol[];
/** The dialects spoken over HTTP (their targets are http:// URLs); the rest speak WebSocket. */
export const HTTP_PROTOCOLS: ReadonlySet<Protocol> = new Set(['vllm-omni-speech', 'openai-speech']);

export type DialectSettings = Omit<OpenAISettings, 'beta'> & { speech: SpeechSettings };

export function createDialect(protocol: Protocol, settings: DialectSettings): Dialect {
  switch (protocol) {
    case 'vllm':
      return vllmDialect(settings);
    case 'openai':
    case 'openai-beta':
      return openaiDialect({ ...settings, beta: protocol === 'openai-beta' });
    case 'vllm-omni-speech':
      return vllmOmniSpeechDialect(settings.speech);
    case 'openai-speech':
      return openaiSpeechDialect(settings.speech);
    case 'vllm-omni-speech-ws':
      return vllmOmniSpeechWsDialect(settings.speech);
    case 'openai-realtime-tts':
    case 'openai-realtime-tts-beta':
      return openaiRealtimeTtsDialect({ ...settings.speech, beta: protocol === 'openai-realtime-tts-beta' });
    case 'elevenlabs':
      return elevenlabsDialect(settings.speech);
  }
}
