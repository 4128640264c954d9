import { ProtocolViolation, type DecodedEvent, type WebSocketDialect } from '../dialect.js';
import { audioEvent, base64Bytes, noAudioInput, speechPolicy, stringField, TTS_RATE, type SpeechWsSettings } from '../tts-common.js';
import { END, text, jsonMessageReader } from '../tts-sent.js';
import { ELEVENLABS } from './spec.js';

/** ElevenLabs' long-standing default voice ("Rachel"). */
export const DEFAULT_ELEVENLABS_VOICE = '21m00Tcm4TlvDq8ikWAM';

/**
 * ElevenLabs `stream-input` WebSocket, `/v1/text-to-speech/{voice_id}/stream-input`
 * (`model_id`, `output_format=pcm_<--output-rate>` in the query; the key in `xi-api-key`).
 *
 * connect → `{"text": " "}` (the opening message: exactly one space) → text chunks,
 * each ending in a space → `{"text": ""}` (end of input: forces synthesis of what is
 * buffered; the server waits for 120 characters or this) → `{"audio": "<b64>",
 * "isFinal": false, …}`* → `{"isFinal": true}` (also spelt `is_final`), then the server
 * closes. So one input per session. Messages carry no `type`. Errors:
 * `{"message", "error", "code": 1008}`, then close 1008.
 */
export function elevenlabsDialect(settings: SpeechWsSettings): WebSocketDialect {
  const voice = settings.voice ?? DEFAULT_ELEVENLABS_VOICE;
  const opening = JSON.stringify({ text: ' ' });
  const end = JSON.stringify({ text: '' });
  const rate = settings.outputRate ?? TTS_RATE;
  return {
    name: 'elevenlabs',
    task: 'tts',
    transport: 'websocket',
    sampleRate: rate,
    turnDetection: 'client',
    readyEvent: 'open',
    policy: () => speechPolicy(true),
    connectUrl: (target) => {
      const url = new URL(target);
      if (url.pathname === '/' || url.pathname === '') url.pathname = ELEVENLABS.path.replace('{voice_id}', encodeURIComponent(voice));
      if (!url.searchParams.has('model_id')) url.searchParams.set('model_id', settings.model);
      if (!url.searchParams.has('output_format')) url.searchParams.set('output_format', `pcm_${rate}`);
      if (settings.language !== undefined && !url.searchParams.has('language_code')) url.searchParams.set('language_code', settings.language);
      return url.toString();
    },
    upgradeHeaders: () => ({}),
    textFrame: (text) => JSON.stringify({ text: /\s$/.test(text) ? text : `${text} ` }),
    sessionFrames: () => [opening],
    sessionUpdateFrame: () => opening,
    inputStartFrame: () => null,
    audioFrame: noAudioInput('elevenlabs'),
    inputEndFrame: () => end,
    flushFrame: () => end,
    readSent: readElevenLabsSent,
    decode: (data, isBinary) => {
      if (isBinary) throw new ProtocolViolation(`server sent a binary frame (${data.length} bytes); elevenlabs speaks JSON text frames`);
      return interpretElevenLabsMessage(data.toString('utf8'), rate);
    },
  };
}

/** One message: its audio (if any), then its end of stream (if final); the wire has no `type`, so the events are named by their field. */
export function interpretElevenLabsMessage(data: string, rate = TTS_RATE): DecodedEvent[] {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new ProtocolViolation(`server sent a frame that is not JSON: ${JSON.stringify(data.slice(0, 80))}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ProtocolViolation(`server sent a JSON frame that is not an object: ${data.slice(0, 80)}`);
  const message = value as Record<string, unknown>;
  if (typeof message.error === 'string' || (message.message !== undefined && message.audio === undefined)) {
    return [{ type: 'error', kind: 'error', message: stringField(message.message), ...(typeof message.error === 'string' ? { code: message.error } : {}) }];
  }
  const events: DecodedEvent[] = [];
  if (typeof message.audio === 'string') events.push(audioEvent('audio', base64Bytes(message.audio), message.audio, rate));
  if (message.isFinal === true || message.is_final === true) events.push({ type: 'isFinal', kind: 'response_done' });
  return events.length > 0 ? events : [{ type: message.audio === null ? 'audio' : '(message)', kind: 'other' }];
}

/** ElevenLabs `stream-input`: the opening `{"text": " "}`, text pieces (`flush: true` forces synthesis), and `{"text": ""}` to end. */
export const readElevenLabsSent = jsonMessageReader((m) => {
  if (m.text === '') return END;
  if (m.text === ' ') return { kind: 'control', control: 'session_config' };
  return text(m.text, m.flush === true ? { ends: true } : {});
});
