import type { Task } from '../timeline/types.js';
import type { Dialect } from './dialect.js';
import { openaiDialect, type OpenAISettings } from './openai.js';
import { transcriptionsDialect, type TranscriptionOptions } from './transcriptions.js';
import { openaiRealtimeDialect } from './openai-realtime.js';
import { vllmDialect } from './vllm.js';
import { vllmOmniDuplexDialect } from './vllm-omni-duplex.js';

/** Every wire dialect voxbench speaks, by its `--protocol` name, with the task it serves. */
export const DIALECTS = {
  vllm: 'stt',
  openai: 'stt',
  'openai-beta': 'stt',
  'vllm-transcriptions': 'batch_stt',
  'openai-transcriptions': 'batch_stt',
  'vllm-omni-duplex': 's2s',
  'openai-realtime': 's2s',
} as const satisfies Record<string, Task>;
export type Protocol = keyof typeof DIALECTS;
export const PROTOCOLS = Object.keys(DIALECTS) as Protocol[];

export type DialectSettings = Omit<OpenAISettings, 'beta'> & { transcription?: TranscriptionOptions };

/** Whether the protocol speaks HTTP (one request per input: the batch tasks) rather than WebSocket. */
export const isHttpProtocol = (protocol: Protocol): boolean => DIALECTS[protocol].startsWith('batch_');

export function createDialect(protocol: Protocol, settings: DialectSettings): Dialect {
  switch (protocol) {
    case 'vllm':
      return vllmDialect(settings);
    case 'openai':
    case 'openai-beta':
      return openaiDialect({ ...settings, beta: protocol === 'openai-beta' });
    case 'vllm-transcriptions':
    case 'openai-transcriptions':
      return transcriptionsDialect(protocol, settings);
    case 'vllm-omni-duplex':
      return vllmOmniDuplexDialect(settings);
    case 'openai-realtime':
      return openaiRealtimeDialect(settings);
  }
}
