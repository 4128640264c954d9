import { jsonSentReader, jsonTextDecoder, parseEventObject, type DecodedEvent, type SentReading, type WebSocketDialect } from '../dialect.js';
import { transcriptionPolicy } from '../stt-policy.js';
import { openAIEventOf, wireTurnDetection, type OpenAISettings } from '../realtime-common.js';

/**
 * OpenAI Realtime transcription sessions (`?intent=transcription`), GA or beta format.
 *
 * connect → `session.created` → `session.update {session: {type: "transcription", …}}`
 * → `input_audio_buffer.append`* (base64 PCM16, 24 kHz) → with `turn_detection: null`
 * the client commits each turn; with `server_vad` / `semantic_vad` the server does
 * (`speech_started` / `speech_stopped` / `committed`) → per item
 * `conversation.item.input_audio_transcription.delta`* → `.completed` (or `.failed`).
 * Errors are nested: `{type: "error", error: {type, code, message, param}}`.
 */
export function openaiDialect(settings: OpenAISettings): WebSocketDialect {
  const transcription = {
    model: settings.model,
    ...(settings.language !== undefined ? { language: settings.language } : {}),
    ...(settings.prompt !== undefined ? { prompt: settings.prompt } : {}),
  };
  const turnDetection = wireTurnDetection(settings.turnDetection);
  const sessionUpdate = JSON.stringify(
    settings.beta
      ? {
          type: 'transcription_session.update',
          session: { input_audio_format: 'pcm16', input_audio_transcription: transcription, turn_detection: turnDetection },
        }
      : {
          type: 'session.update',
          session: {
            type: 'transcription',
            audio: { input: { format: { type: 'audio/pcm', rate: 24_000 }, transcription, turn_detection: turnDetection } },
          },
        },
  );
  const commit = JSON.stringify({ type: 'input_audio_buffer.commit' });
  const name = settings.beta ? 'openai-beta' : 'openai';
  const endsInputs = settings.turnDetection.type === 'none' ? 'client' : 'server';
  return {
    name,
    task: 'stt',
    transport: 'websocket',
    sampleRate: 24_000,
    turnDetection: endsInputs,
    readyEvent: 'session.created',
    policy: () => transcriptionPolicy(endsInputs),
    connectUrl: (target) => {
      const url = new URL(target);
      if (!url.searchParams.has('intent') && !url.searchParams.has('model')) url.searchParams.set('intent', 'transcription');
      return url.toString();
    },
    upgradeHeaders: (): Record<string, string> => (settings.beta ? { 'OpenAI-Beta': 'realtime=v1' } : {}),
    sessionFrames: () => [sessionUpdate],
    sessionUpdateFrame: () => sessionUpdate,
    inputStartFrame: () => null,
    audioFrame: (pcm16) => `{"type":"input_audio_buffer.append","audio":"${pcm16.toString('base64')}"}`,
    inputEndFrame: () => commit,
    flushFrame: () => commit,
    decode: jsonTextDecoder(name, interpretOpenAIEvent),
    readSent: jsonSentReader(readOpenAISent),
  };
}

/**
 * A client's frame. A session configuration names the model and who ends turns
 * (`turn_detection: null` is the client), in the GA or the beta shape, and what the
 * session is for: transcription (GA `type: "transcription"`, beta
 * `transcription_session.update`) or a conversation (`type: "realtime"`, beta
 * `session.update`), which the proxy settles the dialect by.
 */
function readOpenAISent(event: Record<string, unknown> & { type: string }): SentReading {
  switch (event.type) {
    case 'session.update':
    case 'transcription_session.update': {
      const session = record(event.session);
      const input = record(record(session.audio).input);
      const transcription = record(input.transcription ?? session.input_audio_transcription);
      const detection = 'turn_detection' in input ? input.turn_detection : session.turn_detection;
      const type = session.type ?? (event.type === 'session.update' ? 'realtime' : 'transcription');
      return {
        kind: 'control',
        control: 'session_config',
        ...(type === 'transcription' ? { task: 'stt' as const } : type === 'realtime' ? { task: 's2s' as const } : {}),
        ...(typeof transcription.model === 'string' ? { model: transcription.model } : {}),
        ...(detection !== undefined ? { turnDetection: detection === null ? ('client' as const) : ('server' as const) } : {}),
      };
    }
    case 'input_audio_buffer.commit':
      return { kind: 'control', control: 'input_end' };
    case 'response.create':
      return { kind: 'control', control: 'response_request' };
    case 'response.cancel':
      return { kind: 'control', control: 'cancel' };
    default:
      return { kind: 'other', type: event.type };
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

export function interpretOpenAIEvent(data: string): DecodedEvent {
  return openAIEventOf(parseEventObject(data));
}
