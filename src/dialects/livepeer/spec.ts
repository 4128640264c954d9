import type { DialectSpec } from '../spec.js';

/**
 * Livepeer's realtime transcription app (livepeer/live-runner-example-apps `vllm-realtime`):
 * the session opens with `POST {app}/transcribe`, audio goes to a Trickle channel, events come
 * back on the app's `/ws`. Its `--target` is the app's http:// URL (through an orchestrator,
 * the session's `app_url`).
 */
export const LIVEPEER = {
  name: 'livepeer',
  task: 'stt',
  transport: 'websocket',
  path: '/ws',
  target: 'http',
  auth: 'bearer',
  defaultModel: 'mistralai/Voxtral-Mini-4B-Realtime-2602',
  limits: {
    oneInputPerSession: ': the end of its audio (the Trickle channel closed) ends the session',
    clientTurnsOnly: "Livepeer's app transcribes until the client ends the audio (no server VAD)",
  },
} as const satisfies DialectSpec;

/** The app's session endpoint, relative to its URL. */
export const TRANSCRIBE_PATH = '/transcribe';
/** PCM16LE mono at 16 kHz, the MIME type its Trickle channel carries. */
export const SAMPLE_RATE = 16_000;
