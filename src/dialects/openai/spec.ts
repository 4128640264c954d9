import type { DialectSpec, Upgrade } from '../spec.js';

/** OpenAI's transcription model, in both shapes. */
const GPT_4O_TRANSCRIBE = 'gpt-4o-transcribe';
/** OpenAI's transcription model that labels speakers (`response_format=diarized_json`). */
export const DIARIZE_MODEL = 'gpt-4o-transcribe-diarize';
/** OpenAI's transcription models, which the simulated server serves. */
export const OPENAI_MODELS = [GPT_4O_TRANSCRIBE, 'gpt-4o-mini-transcribe', 'whisper-1', DIARIZE_MODEL];

/** OpenAI Realtime transcription (GA shape) on `/v1/realtime`, a path it shares with conversations and speech generation. */
export const OPENAI = {
  name: 'openai',
  task: 'stt',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: GPT_4O_TRANSCRIBE,
  keyEnv: 'OPENAI_API_KEY',
} as const satisfies DialectSpec;

/** OpenAI Realtime transcription in the beta shape (`OpenAI-Beta: realtime=v1`). */
export const OPENAI_BETA = {
  name: 'openai-beta',
  task: 'stt',
  transport: 'websocket',
  auth: 'bearer',
  defaultModel: GPT_4O_TRANSCRIBE,
  keyEnv: 'OPENAI_API_KEY',
} as const satisfies DialectSpec;

/**
 * On the shared `/v1/realtime`, OpenAI Realtime is an upgrade with `?intent=` or `?model=`,
 * or an `OpenAI-Beta` header (anything else is vLLM's): the built-in server and the proxy
 * tell it alike.
 */
export const asksOpenai = ({ url, headers }: Upgrade): boolean =>
  url.searchParams.has('intent') || url.searchParams.has('model') || headers['openai-beta'] !== undefined;

/** Whether an upgrade asks for OpenAI Realtime's beta shape (`OpenAI-Beta: realtime=v1`). */
export const asksBeta = ({ headers }: Upgrade): boolean => String(headers['openai-beta']).includes('realtime=v1');
