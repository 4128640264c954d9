import type { DialectSpec } from '../spec.js';

/** ElevenLabs' `stream-input` WebSocket, one path per voice; the key in `xi-api-key`. */
export const ELEVENLABS = {
  name: 'elevenlabs',
  task: 'tts',
  transport: 'websocket',
  path: '/v1/text-to-speech/{voice_id}/stream-input',
  auth: 'xi-api-key',
  defaultModel: 'eleven_flash_v2_5',
} as const satisfies DialectSpec;
