import type { DialectSpec } from '../spec.js';

/** Where ElevenLabs' own clients read the key (its speech generation and its Scribe transcription alike). */
export const ELEVENLABS_KEY_ENV = 'ELEVENLABS_API_KEY';

/** ElevenLabs' `stream-input` WebSocket, one path per voice; the key in `xi-api-key`. */
export const ELEVENLABS = {
  name: 'elevenlabs',
  task: 'tts',
  transport: 'websocket',
  path: '/v1/text-to-speech/{voice_id}/stream-input',
  auth: 'xi-api-key',
  defaultModel: 'eleven_flash_v2_5',
  keyEnv: ELEVENLABS_KEY_ENV,
  limits: { oneInputPerSession: ': its end of input closes the socket' },
} as const satisfies DialectSpec;
