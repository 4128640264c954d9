import { jsonTextDecoder, parseEventObject, textField, usageOf, type DecodedEvent, type WebSocketDialect } from '../dialect.js';
import { audioEvent, base64Bytes, noAudioInput, speechPolicy, stringField, TTS_RATE, withDefaultPath, type SpeechWsSettings } from '../tts-common.js';
import { readRealtimeTtsSent } from '../tts-sent.js';

export const DEFAULT_REALTIME_TTS_VOICE = 'marin';
/** A realtime model is not a TTS: it is told to read the text, and its transcript shows whether it did. */
export const READ_ALOUD = "Read the user's text aloud exactly as written, word for word, adding nothing.";

/**
 * The OpenAI Realtime API used as a speech generator (`/v1/realtime?model=…`), GA or
 * beta format.
 *
 * connect → `session.created` → `session.update` (audio output, PCM16 24 kHz, voice,
 * read-aloud instructions) → each text piece as a user message item
 * (`conversation.item.create` with `input_text`) → `response.create` (forces synthesis)
 * → `response.created` → `response.output_audio.delta`* (beta `response.audio.delta`;
 * empty deltas are no audio) with `…audio_transcript.delta` → `response.done {response:
 * {status}}`, where a status other than `completed` is an error. Errors:
 * `{type: "error", error: {type, code, message}}`.
 */
export function openaiRealtimeTtsDialect(settings: SpeechWsSettings & { beta: boolean }): WebSocketDialect {
  const voice = settings.voice ?? DEFAULT_REALTIME_TTS_VOICE;
  // The benchmark asks for 24 kHz (config allows no other); the proxy reads a client's own rate.
  const rate = settings.outputRate ?? TTS_RATE;
  const sessionUpdate = JSON.stringify({
    type: 'session.update',
    session: settings.beta
      ? { modalities: ['audio', 'text'], voice, output_audio_format: 'pcm16', instructions: READ_ALOUD }
      : { type: 'realtime', output_modalities: ['audio'], instructions: READ_ALOUD, audio: { output: { format: { type: 'audio/pcm', rate }, voice } } },
  });
  const responseCreate = JSON.stringify({
    type: 'response.create',
    response: settings.beta ? { modalities: ['audio', 'text'] } : { output_modalities: ['audio'] },
  });
  const name = settings.beta ? 'openai-realtime-tts-beta' : 'openai-realtime-tts';
  return {
    name,
    task: 'tts',
    transport: 'websocket',
    sampleRate: rate,
    turnDetection: 'client',
    readyEvent: 'session.created',
    policy: () => speechPolicy(false),
    connectUrl: (target) => {
      const url = withDefaultPath(target, '/v1/realtime');
      if (!url.searchParams.has('model')) url.searchParams.set('model', settings.model);
      return url.toString();
    },
    upgradeHeaders: (): Record<string, string> => (settings.beta ? { 'OpenAI-Beta': 'realtime=v1' } : {}),
    textFrame: (text) => JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } }),
    sessionFrames: () => [sessionUpdate],
    sessionUpdateFrame: () => sessionUpdate,
    inputStartFrame: () => null,
    audioFrame: noAudioInput(name),
    inputEndFrame: () => responseCreate,
    flushFrame: () => responseCreate,
    readSent: readRealtimeTtsSent,
    decode: jsonTextDecoder(name, (data) => interpretRealtimeTtsEvent(data, rate)),
  };
}

export function interpretRealtimeTtsEvent(data: string, rate = TTS_RATE): DecodedEvent {
  const event = parseEventObject(data);
  const { type } = event;
  const responseId = typeof event.response_id === 'string' ? { responseId: event.response_id } : {};
  switch (type) {
    case 'session.created':
      return { type, kind: 'ready' };
    case 'session.updated':
      return { type, kind: 'updated' };
    case 'response.created': {
      const response = event.response as { id?: unknown } | undefined;
      return { type, kind: 'response_started', ...(typeof response?.id === 'string' ? { responseId: response.id } : {}) };
    }
    case 'response.output_audio.delta':
    case 'response.audio.delta': {
      const b64 = stringField(event.delta);
      return { ...audioEvent(type, base64Bytes(b64), b64, rate), ...responseId };
    }
    case 'response.output_audio_transcript.delta':
    case 'response.audio_transcript.delta':
      return { type, kind: 'text_delta', channel: 'response_transcript', text: textField(event, 'delta', type) ?? '', ...responseId };
    case 'response.output_audio_transcript.done':
    case 'response.audio_transcript.done':
      return { type, kind: 'text_final', channel: 'response_transcript', text: textField(event, 'transcript', type) ?? '', ...responseId };
    case 'response.output_audio.done':
    case 'response.audio.done':
      return { type, kind: 'audio_final', ...responseId };
    case 'response.done': {
      const response = (event.response ?? {}) as {
        id?: unknown;
        status?: unknown;
        usage?: unknown;
        status_details?: { reason?: unknown; error?: { message?: unknown } };
      };
      const id = typeof response.id === 'string' ? { responseId: response.id } : {};
      if (response.status === undefined || response.status === 'completed')
        return { type, kind: 'response_done', ...id, ...usageOf(response.usage, 'response.done') };
      const reason = stringField(response.status_details?.reason) || stringField(response.status_details?.error?.message);
      return {
        type,
        kind: 'error',
        code: `response_${stringField(response.status)}`,
        message: `the response ended ${stringField(response.status)}${reason ? ` (${reason})` : ''}`,
        ...id,
      };
    }
    case 'error': {
      const error = (typeof event.error === 'object' && event.error !== null ? event.error : {}) as Record<string, unknown>;
      const code = error.code ?? error.type;
      return { type, kind: 'error', message: stringField(error.message), ...(typeof code === 'string' ? { code } : {}) };
    }
    default:
      return { type, kind: 'other' };
  }
}
