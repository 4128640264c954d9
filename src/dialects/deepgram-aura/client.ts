import { jsonTextDecoder, parseEventObject, type DecodedEvent, type WebSocketDialect } from '../dialect.js';
import { audioEvent, noAudioInput, speechPolicy, stringField, TTS_RATE, withDefaultPath, type SpeechWsSettings } from '../tts-common.js';
import { END, other, text, jsonMessageReader } from '../tts-sent.js';
import { DEEPGRAM_AURA } from './spec.js';

/**
 * Deepgram Aura's `/v1/speak` WebSocket (`model`, `encoding=linear16`, `sample_rate` in
 * the query; the key as `Authorization: Token`).
 *
 * connect → `{"type": "Metadata", request_id, model_name, …}` (the server's greeting:
 * the session is ready, and it is never a first frame of a response) → `{"type":
 * "Speak", "text"}`* → `{"type": "Flush"}` (forces synthesis) → binary linear16 frames
 * → `{"type": "Flushed", sequence_id}` per flush; the socket stays open for the next
 * input. `Warning {description, code}` is recorded, not fatal; an `Error` ends the
 * session (Deepgram itself also closes with 1008/1009/1011 and the reason).
 */
export function deepgramAuraDialect(settings: SpeechWsSettings): WebSocketDialect {
  const flush = JSON.stringify({ type: 'Flush' });
  const decodeJson = jsonTextDecoder('deepgram-aura', interpretAuraEvent);
  const rate = settings.outputRate ?? TTS_RATE;
  return {
    name: 'deepgram-aura',
    task: 'tts',
    transport: 'websocket',
    sampleRate: rate,
    turnDetection: 'client',
    readyEvent: 'Metadata',
    policy: () => speechPolicy(false),
    connectUrl: (target) => {
      const url = withDefaultPath(target, DEEPGRAM_AURA.path);
      const query = { model: settings.model, encoding: 'linear16', sample_rate: String(rate), container: 'none' };
      for (const [key, value] of Object.entries(query)) if (!url.searchParams.has(key)) url.searchParams.set(key, value);
      return url.toString();
    },
    upgradeHeaders: () => ({}),
    textFrame: (text) => JSON.stringify({ type: 'Speak', text }),
    sessionFrames: () => [],
    sessionUpdateFrame: () => flush,
    inputStartFrame: () => null,
    audioFrame: noAudioInput('deepgram-aura'),
    inputEndFrame: () => flush,
    flushFrame: () => flush,
    readSent: readAuraSent,
    decode: (data, isBinary) => (isBinary ? [audioEvent('(binary)', data.length, data, rate)] : decodeJson(data, false)),
  };
}

export function interpretAuraEvent(data: string): DecodedEvent {
  const event = parseEventObject(data);
  const { type } = event;
  switch (type) {
    case 'Metadata':
      return { type, kind: 'ready' };
    case 'Flushed':
      return { type, kind: 'response_done' };
    case 'Warning':
      return { type, kind: 'other', message: stringField(event.description), ...(typeof event.code === 'string' ? { code: event.code } : {}) };
    case 'Error':
      return {
        type,
        kind: 'error',
        message: stringField(event.description) || stringField(event.message),
        ...(typeof event.code === 'string' ? { code: event.code } : {}),
      };
    default:
      return { type, kind: 'other' };
  }
}

/** Deepgram Aura `/v1/speak`: `Speak`*, `Flush`; `Clear` drops what is buffered. */
export const readAuraSent = jsonMessageReader((m) => {
  switch (m.type) {
    case 'Speak':
      return text(m.text);
    case 'Flush':
      return END;
    case 'Clear':
      return { kind: 'control', control: 'cancel' };
    default:
      return other(m.type);
  }
});
