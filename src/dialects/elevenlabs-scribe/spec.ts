import type { DialectSpec } from '../spec.js';
import { ELEVENLABS_KEY_ENV } from '../elevenlabs/spec.js';

/** ElevenLabs Scribe v2 Realtime, speech to text on its own WebSocket path; the key in `xi-api-key`, as ElevenLabs' speech generation takes it. */
export const ELEVENLABS_SCRIBE = {
  name: 'elevenlabs-scribe',
  task: 'stt',
  transport: 'websocket',
  path: '/v1/speech-to-text/realtime',
  auth: 'xi-api-key',
  keyQuery: 'token',
  defaultModel: 'scribe_v2_realtime',
  keyEnv: ELEVENLABS_KEY_ENV,
} as const satisfies DialectSpec;

/** Scribe's audio here: PCM16 at 16 kHz (`audio_format=pcm_16000`), the rate its SDK streams at. */
export const SCRIBE_AUDIO_FORMAT = 'pcm_16000';
export const SCRIBE_SAMPLE_RATE = 16_000;

/** The error message types Scribe documents (its SDK's `ServerErrorMessage`), unaccepted terms in both its spellings. */
export const SCRIBE_ERRORS: ReadonlySet<string> = new Set([
  'error',
  'auth_error',
  'quota_exceeded',
  'commit_throttled',
  'transcriber_error',
  'unaccepted_terms',
  'unaccepted_terms_error',
  'rate_limited',
  'input_error',
  'invalid_request',
  'queue_overflow',
  'resource_exhausted',
  'session_time_limit_exceeded',
  'chunk_size_exceeded',
  'insufficient_audio_activity',
]);
