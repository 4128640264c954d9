import type { Task } from '../timeline/types.js';
import type { Dialect } from './dialect.js';
import { openaiDialect, type OpenAISettings } from './openai.js';
import { transcriptionsDialect, type TranscriptionOptions } from './transcriptions.js';
import { openaiRealtimeDialect } from './openai-realtime.js';
import { cartesiaDialect } from './cartesia.js';
import { deepgramAuraDialect } from './deepgram-aura.js';
import { elevenlabsDialect } from './elevenlabs.js';
import { openaiRealtimeTtsDialect } from './openai-realtime-tts.js';
import { openaiSpeechDialect } from './openai-speech.js';
import type { SpeechSettings } from './speech-http.js';
import { vllmOmniSpeechDialect } from './vllm-omni-speech.js';
import { vllmOmniSpeechWsDialect } from './vllm-omni-speech-ws.js';
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
  // Streamed; with --stream-format none these are batch_tts (the dialect's own `task` says which).
  'vllm-omni-speech': 'tts',
  'openai-speech': 'tts',
  'vllm-omni-speech-ws': 'tts',
  'openai-realtime-tts': 'tts',
  'openai-realtime-tts-beta': 'tts',
  elevenlabs: 'tts',
  'deepgram-aura': 'tts',
  cartesia: 'tts',
} as const satisfies Record<string, Task>;
export type Protocol = keyof typeof DIALECTS;
export const PROTOCOLS = Object.keys(DIALECTS) as Protocol[];
export type DialectSettings = Omit<OpenAISettings, 'beta'> & { transcription?: TranscriptionOptions; speech: SpeechSettings };

/** The dialects spoken over HTTP, one request per input (their targets are http:// URLs); the rest speak WebSocket. */
const HTTP_PROTOCOLS: ReadonlySet<Protocol> = new Set(['vllm-transcriptions', 'openai-transcriptions', 'vllm-omni-speech', 'openai-speech']);
/** The dialects `voxbench proxy` meters: every WebSocket one (each reads the client's frames). */
export const METERED_PROTOCOLS: readonly Protocol[] = PROTOCOLS.filter((p) => !HTTP_PROTOCOLS.has(p));

export const isHttpProtocol = (protocol: Protocol): boolean => HTTP_PROTOCOLS.has(protocol);

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
    case 'deepgram-aura':
      return deepgramAuraDialect(settings.speech);
    case 'cartesia':
      return cartesiaDialect(settings.speech);
  }
}
