import type { SentReading, WebSocketDialect } from './dialect.js';
import { pcmRate } from './tts-common.js';

/**
 * How `voxbench proxy` reads the client's frames of the WebSocket speech-generation
 * dialects, as the benchmark records its own: pieces of text (`text`, charged to the
 * input they open or continue) and the send that forces synthesis (`input_end`: the
 * anchor of TTFA), with the session's configuration, the model it names and the PCM
 * rate it asks the audio in.
 */

export type Message = Record<string, unknown>;

export const END: SentReading = { kind: 'control', control: 'input_end' };
export const other = (type: unknown): SentReading => ({ kind: 'other', type: typeof type === 'string' ? type : '(message)' });
export const model = (value: unknown): { model?: string } => (typeof value === 'string' ? { model: value } : {});
export const rate = (value: unknown): { outputRate?: number } => {
  const named = pcmRate(value);
  return named !== undefined ? { outputRate: named } : {};
};
/** The voice and format a configuration asks for, where it names them. */
export const asked = (voice: unknown, format: unknown): { voice?: string; format?: string } => ({
  ...(typeof voice === 'string' ? { voice } : {}),
  ...(typeof format === 'string' ? { format } : {}),
});
export const text = (value: unknown, extra: { ends?: boolean; model?: string; outputRate?: number } = {}): SentReading =>
  typeof value === 'string' ? { kind: 'text', text: value, ...extra } : other('(message)');

/** A reader of a client's JSON text frames, typed or not (ElevenLabs and Cartesia messages carry no `type`); never throws. */
export function jsonMessageReader(interpret: (message: Message) => SentReading): NonNullable<WebSocketDialect['readSent']> {
  return (data, isBinary) => {
    if (isBinary) return { kind: 'other', type: '(binary)' };
    let message: unknown;
    try {
      message = JSON.parse(data.toString('utf8'));
    } catch {
      return { kind: 'other', type: '(invalid)' };
    }
    return typeof message === 'object' && message !== null && !Array.isArray(message) ? interpret(message as Message) : { kind: 'other', type: '(invalid)' };
  };
}

/** OpenAI Realtime as a speech generator: `session.update` (GA: its `audio/pcm` output format's rate), user `input_text` items, `response.create`. */
export const readRealtimeTtsSent = jsonMessageReader((m) => {
  switch (m.type) {
    case 'session.update': {
      const session = (m.session ?? {}) as Message;
      const format = ((session.audio as Message | undefined)?.output as Message | undefined)?.format as Message | undefined;
      const voice = ((session.audio as Message | undefined)?.output as Message | undefined)?.voice ?? session.voice;
      return {
        kind: 'control',
        control: 'session_config',
        ...model(session.model),
        ...(format?.type === 'audio/pcm' ? rate(format.rate) : {}),
        ...asked(voice, format?.type ?? session.output_audio_format),
      };
    }
    case 'conversation.item.create': {
      const content = (m.item as { content?: unknown } | undefined)?.content;
      const pieces = Array.isArray(content)
        ? content.filter((c: Message | null) => c?.type === 'input_text' && typeof c.text === 'string').map((c: Message) => c.text as string)
        : [];
      return pieces.length > 0 ? text(pieces.join('')) : other(m.type);
    }
    case 'response.create':
      return END;
    case 'response.cancel':
      return { kind: 'control', control: 'cancel' };
    default:
      return other(m.type);
  }
});
