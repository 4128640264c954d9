import { ProtocolViolation, textField, usageOf, wireText, type BodyDecoder, type DecodedEvent } from './dialect.js';
import { JoinedText } from './text-limits.js';
import { eventStreamDecoder } from './event-stream.js';

/** What a transcription response body is, from its content type, else from what was asked. */
export type BodyKind = 'sse' | 'json' | 'text';

/** Most bytes of one JSON or text body held before it is parsed (an event stream's limit is per event: `SSE_EVENT_LIMIT`). */
export const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export function bodyKindOf(contentType: string, requested: BodyKind): BodyKind {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'text/event-stream') return 'sse';
  if (type === 'application/json') return 'json';
  if (type === 'text/plain') return 'text';
  return requested;
}

/**
 * Decodes a transcription response: a JSON (`json`, `verbose_json`) or text body at
 * its end, or a server-sent event stream as it arrives. Both stream shapes are read
 * whichever server sends them: vLLM's `transcription.chunk` (Chat-Completions-like
 * deltas; one `finish_reason` per 30 s window, so the response is final at
 * `data: [DONE]`, whose text is the deltas joined) and OpenAI's
 * `transcript.text.delta` / `transcript.text.done` (final at `done`; a later
 * `[DONE]` is recorded as `other`). Usage is kept on the event that carries it.
 */
export function transcriptionBodyDecoder(kind: BodyKind): BodyDecoder {
  return kind === 'sse' ? sseDecoder() : wholeBodyDecoder(kind);
}

function wholeBodyDecoder(kind: 'json' | 'text'): BodyDecoder {
  const parts: Buffer[] = [];
  let size = 0;
  return {
    chunk(data) {
      size += data.length;
      if (size > BODY_LIMIT_BYTES) throw new ProtocolViolation(`the response body is larger than ${BODY_LIMIT_BYTES} bytes`);
      parts.push(data);
      return [];
    },
    end() {
      const body = Buffer.concat(parts).toString('utf8');
      if (kind === 'text') return [{ type: 'text', kind: 'text_final', channel: 'input_transcript', text: body.trim() }];
      const value = parseJson(body, 'the response body');
      const error = errorOf(value);
      if (error) return [error];
      const text = textField(value, 'text', 'a transcription');
      if (text === undefined) throw new ProtocolViolation(`the response body has no string "text": ${body.slice(0, 80)}`);
      return [
        {
          type: 'transcription',
          kind: 'text_final',
          channel: 'input_transcript',
          text: text.trim(),
          ...speakerSegments(value.segments),
          ...usageOf(value.usage, 'transcription'),
        },
      ];
    },
  };
}

function sseDecoder(): BodyDecoder {
  /** Text of the deltas so far: the final of a stream that ends with `[DONE]` alone (bounded: an endless stream must not build an endless string). */
  const deltas = new JoinedText();
  let final = false;
  const interpret = (data: string): DecodedEvent => {
    if (data === '[DONE]') {
      if (final) return { type: '[DONE]', kind: 'other' };
      final = true;
      return { type: '[DONE]', kind: 'text_final', channel: 'input_transcript', ...deltas.result() };
    }
    const event = parseJson(data, 'a server-sent event');
    const error = errorOf(event);
    if (error) return error;
    const usage = usageOf(event.usage, typeof event.object === 'string' ? event.object : typeof event.type === 'string' ? event.type : 'message');
    switch (event.type) {
      case 'transcript.text.delta': {
        const delta = textField(event, 'delta', event.type) ?? '';
        deltas.add(delta);
        return { type: event.type, kind: 'text_delta', channel: 'input_transcript', text: delta };
      }
      case 'transcript.text.segment':
        return { type: event.type, kind: 'other', ...speakerSegments([event]) };
      case 'transcript.text.done':
        final = true;
        return { type: event.type, kind: 'text_final', channel: 'input_transcript', text: (textField(event, 'text', event.type) ?? '').trim(), ...usage };
    }
    const type = typeof event.object === 'string' ? event.object : typeof event.type === 'string' ? event.type : 'message';
    const choices = Array.isArray(event.choices) ? (event.choices as Array<{ delta?: { content?: unknown } }>) : [];
    if (choices.length > 0) {
      const delta = choices[0]?.delta;
      const content = typeof delta === 'object' && delta !== null ? (textField(delta, 'content', `${type} delta`) ?? '') : '';
      deltas.add(content);
      return { type, kind: 'text_delta', channel: 'input_transcript', text: content, ...usage };
    }
    return { type, kind: 'other', ...usage };
  };
  return eventStreamDecoder((data) => [interpret(data)]);
}

/**
 * OpenAI's diarized segments (`diarized_json` `segments[]` and `transcript.text.segment`
 * events: `start`, `end` in seconds, `speaker`, `text`) as labelled spans of the timeline:
 * the model gives no word times, so each segment is one span with one speaker. None
 * unless some segment has a speaker (Whisper's `verbose_json` segments have none).
 */
function speakerSegments(segments: unknown): Pick<DecodedEvent, 'words'> {
  if (!Array.isArray(segments)) return {};
  const labelled = (segments as unknown[]).filter(
    (s): s is Record<string, unknown> => typeof s === 'object' && s !== null && typeof (s as { speaker?: unknown }).speaker === 'string',
  );
  if (labelled.length === 0) return {};
  return {
    words: labelled.map((s) => ({
      text: stringOf(s.text).trim(),
      ...(typeof s.start === 'number' && Number.isFinite(s.start) ? { startMs: s.start * 1000 } : {}),
      ...(typeof s.end === 'number' && Number.isFinite(s.end) ? { endMs: s.end * 1000 } : {}),
      speaker: s.speaker as string,
    })),
  };
}

function parseJson(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ProtocolViolation(`${what} is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProtocolViolation(`${what} is not a JSON object: ${text.slice(0, 80)}`);
  return value as Record<string, unknown>;
}

/** An error in a body or a stream, in the shapes OpenAI-compatible servers send: `{"error": {...}}`, `{"object": "error"}`, `{"type": "error"}`. */
function errorOf(value: Record<string, unknown>): DecodedEvent | undefined {
  const nested = typeof value.error === 'object' && value.error !== null ? (value.error as Record<string, unknown>) : undefined;
  if (!nested && value.object !== 'error' && value.type !== 'error') return undefined;
  const source = nested ?? value;
  const code = source.code ?? source.type;
  return {
    type: 'error',
    kind: 'error',
    message: typeof source.message === 'string' ? source.message : typeof value.error === 'string' ? value.error : '',
    ...(code !== undefined && code !== 'error' ? { code: wireText(code) } : {}),
  };
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
