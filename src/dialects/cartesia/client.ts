import { jsonTextDecoder, parseEventObject, wireText, type DecodedEvent, type WebSocketDialect } from '../dialect.js';
import { audioEvent, base64Bytes, noAudioInput, speechPolicy, stringField, TTS_RATE, withDefaultPath, type SpeechWsSettings } from '../tts-common.js';
import { END, other, model, rate, text, jsonMessageReader, type Message } from '../tts-sent.js';
import { CARTESIA } from './spec.js';

/** A stock Cartesia voice ("Barbershop Man"); any id the account has works. */
export const DEFAULT_CARTESIA_VOICE = 'a0e99841-438c-4a64-b679-ae501e7d6091';
/** The `Cartesia-Version` the wire facts were read at. */
const CARTESIA_VERSION = '2025-04-16';
const CONTEXT = 'voxbench';

/**
 * Cartesia's `/tts/websocket`. Every message is a whole generation request (`model_id`,
 * `voice`, `output_format` raw pcm_s16le at `--output-rate`, pinned on each, as Cartesia asks):
 * text pieces go with `continue: true` on one `context_id`, and the end of input is an
 * empty `transcript` with `continue: false` (forces synthesis; `max_buffer_delay_ms` is
 * pinned to 0 so the server does not wait for more text). Audio comes as `{"type":
 * "chunk", "data": "<b64>"}` until `{"type": "done"}`; `flush_done` and timestamps are
 * recorded; errors are `{"type": "error", status_code, title, message, error_code}`.
 * One context per session, so one input per session.
 */
export function cartesiaDialect(settings: SpeechWsSettings): WebSocketDialect {
  const rate = settings.outputRate ?? TTS_RATE;
  const request = (transcript: string, more: boolean): string =>
    JSON.stringify({
      context_id: CONTEXT,
      model_id: settings.model,
      transcript,
      voice: { mode: 'id', id: settings.voice ?? DEFAULT_CARTESIA_VOICE },
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: rate },
      ...(settings.language !== undefined ? { language: settings.language } : {}),
      continue: more,
      max_buffer_delay_ms: 0,
    });
  const end = request('', false);
  return {
    name: 'cartesia',
    task: 'tts',
    transport: 'websocket',
    sampleRate: rate,
    turnDetection: 'client',
    readyEvent: 'open',
    policy: () => speechPolicy(true),
    connectUrl: (target) => withDefaultPath(target, CARTESIA.path).toString(),
    upgradeHeaders: () => ({ 'Cartesia-Version': CARTESIA_VERSION }),
    textFrame: (text) => request(text, true),
    sessionFrames: () => [],
    sessionUpdateFrame: () => end,
    inputStartFrame: () => null,
    audioFrame: noAudioInput('cartesia'),
    inputEndFrame: () => end,
    flushFrame: () => end,
    readSent: readCartesiaSent,
    decode: jsonTextDecoder('cartesia', (data) => interpretCartesiaEvent(data, rate)),
  };
}

export function interpretCartesiaEvent(data: string, rate = TTS_RATE): DecodedEvent {
  const event = parseEventObject(data);
  const { type } = event;
  switch (type) {
    case 'chunk': {
      const b64 = stringField(event.data);
      return audioEvent(type, base64Bytes(b64), b64, rate);
    }
    case 'done':
      return { type, kind: 'response_done' };
    case 'error': {
      const code = event.error_code ?? event.status_code;
      return {
        type,
        kind: 'error',
        message: stringField(event.message) || stringField(event.title) || stringField(event.error),
        ...(code !== undefined ? { code: wireText(code) } : {}),
      };
    }
    default:
      return { type, kind: 'other' };
  }
}

/**
 * Cartesia `/tts/websocket`: every message a request, naming its model and output format
 * (its `sample_rate`, when raw `pcm_s16le`); `continue: true` adds text, anything else
 * ends the input (with its own text, if any).
 */
export const readCartesiaSent = jsonMessageReader((m) => {
  if (m.cancel === true) return { kind: 'control', control: 'cancel' };
  if (typeof m.transcript !== 'string') return other(m.type);
  const format = (m.output_format ?? {}) as Message;
  const named = { ...model(m.model_id), ...(format.encoding === 'pcm_s16le' ? rate(format.sample_rate) : {}) };
  if (m.continue === true) return m.transcript === '' ? other('(empty)') : text(m.transcript, named);
  return m.transcript === '' ? { ...END, ...named } : text(m.transcript, { ends: true, ...named });
});
