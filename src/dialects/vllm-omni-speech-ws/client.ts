import { parseEventObject, ProtocolViolation, type DecodedEvent, type WebSocketDialect } from '../dialect.js';
import {
  audioEvent,
  base64Bytes,
  noAudioInput,
  speechPolicy,
  stringField,
  TTS_RATE,
  wavAudioStart,
  withDefaultPath,
  type SpeechWsSettings,
} from '../tts-common.js';
import { asked, END, other, model, rate, text, jsonMessageReader } from '../tts-sent.js';
import { VLLM_OMNI_SPEECH_WS } from './spec.js';

/**
 * vLLM-Omni's streaming-text speech WebSocket, `/v1/audio/speech/stream`.
 *
 * connect → `session.config {model, voice, response_format: "pcm", stream_audio: true}`
 * → `input.text`* → `input.done` (forces synthesis) → `audio.start` (an announcement,
 * sent before generation in most modes: never first audio) → binary PCM16 frames →
 * `audio.done` per sentence → `session.done` per flush. Newest servers keep the socket
 * open after `session.done` (one `input.done` per input); older ones close it, so
 * those take one input per session. With `word_timestamps`, audio comes as base64
 * `audio.chunk`; a binary frame that is a WAV file (`stream_audio: false`) has its
 * header left out. Errors: `{type: "error", message}` (with `partial_audio`).
 */
export function vllmOmniSpeechWsDialect(settings: SpeechWsSettings): WebSocketDialect {
  const config = JSON.stringify({
    type: 'session.config',
    model: settings.model,
    ...(settings.voice !== undefined ? { voice: settings.voice } : {}),
    ...(settings.language !== undefined ? { language: settings.language } : {}),
    response_format: 'pcm',
    stream_audio: true,
  });
  const done = JSON.stringify({ type: 'input.done' });
  const rate = settings.outputRate ?? TTS_RATE;
  return {
    name: 'vllm-omni-speech-ws',
    task: 'tts',
    transport: 'websocket',
    sampleRate: rate,
    turnDetection: 'client',
    readyEvent: 'open',
    policy: () => speechPolicy(true),
    connectUrl: (target) => withDefaultPath(target, VLLM_OMNI_SPEECH_WS.path).toString(),
    upgradeHeaders: () => ({}),
    textFrame: (text) => JSON.stringify({ type: 'input.text', text }),
    sessionFrames: () => [config],
    sessionUpdateFrame: () => config,
    inputStartFrame: () => null,
    audioFrame: noAudioInput('vllm-omni-speech-ws'),
    inputEndFrame: () => done,
    flushFrame: () => done,
    readSent: readOmniSpeechSent,
    decode: (data, isBinary) => [isBinary ? binaryAudio(data, rate) : interpretSpeechStreamEvent(data.toString('utf8'), rate)],
  };
}

/** A binary frame: raw PCM16, or a whole WAV file whose header is not audio (its rate and channels size what follows). */
function binaryAudio(data: Buffer, rate: number): DecodedEvent {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'RIFF' || data.toString('latin1', 8, 12) !== 'WAVE')
    return audioEvent('(binary)', data.length, data, rate);
  const start = wavAudioStart(data, true);
  if (!start) throw new ProtocolViolation("a binary frame is a WAV file without a 'data' chunk");
  const format = start.format ?? { rate, channels: 1 };
  return audioEvent('(binary)', data.length - start.offset, data, format.rate * format.channels);
}

export function interpretSpeechStreamEvent(data: string, rate = TTS_RATE): DecodedEvent {
  const event = parseEventObject(data);
  const { type } = event;
  switch (type) {
    case 'audio.start':
      return { type, kind: 'response_started' };
    case 'audio.chunk': {
      const b64 = stringField(event.audio_b64);
      return audioEvent(type, base64Bytes(b64), b64, typeof event.sample_rate === 'number' && event.sample_rate > 0 ? event.sample_rate : rate);
    }
    case 'audio.done':
      return event.error === true
        ? { type, kind: 'error', message: 'the server failed a sentence (audio.done with error: true)' }
        : { type, kind: 'audio_final' };
    case 'session.done':
      return { type, kind: 'response_done' };
    case 'error':
      return { type, kind: 'error', message: stringField(event.message), ...(event.partial_audio === true ? { code: 'partial_audio' } : {}) };
    default:
      return { type, kind: 'other' };
  }
}

/** vLLM-Omni `/v1/audio/speech/stream`: `session.config` (with the `sample_rate` newer servers resample to), `input.text`*, `input.done`. */
export const readOmniSpeechSent = jsonMessageReader((m) => {
  switch (m.type) {
    case 'session.config':
      return { kind: 'control', control: 'session_config', ...model(m.model), ...rate(m.sample_rate), ...asked(m.voice, m.response_format) };
    case 'input.text':
      return text(m.text);
    case 'input.done':
      return END;
    default:
      return other(m.type);
  }
});
