import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SPEECH_RATE } from '../../server/sessions/speech-endpoint.js';
import { base64Of } from '../../server/models/speech-synth.js';
import { SpeechStream } from '../../server/sessions/speech-stream.js';

/**
 * One connection speaking the OpenAI Realtime API as a speech generator: text message
 * items (`conversation.item.create` with `input_text`) are read aloud, word for word,
 * on each `response.create`: `response.created`, `response.output_audio.delta`*
 * (beta `response.audio.delta`) with the transcript, `…audio.done`, `response.done`.
 * The latency model's error event is an `error` and a failed `response.done`.
 */
export class RealtimeTtsSession {
  private readonly speech: SpeechStream;
  private text: string[] = [];
  private responses = 0;

  constructor(
    ws: WebSocket,
    private readonly ctx: SessionContext,
    /** `greeted`: the connection has its `session.created` already (see `openRealtime`, `openai-realtime/simulated.ts`). */
    private readonly options: { model: string; beta: boolean; greeted?: boolean },
  ) {
    this.speech = new SpeechStream(
      ws,
      ctx,
      {
        errorFrame: (code, message) => errorEvent(code, message),
        deltaFrame: () => [`{"type":"${this.name('audio.delta')}","delta":"`, '"}'],
        noiseFrame: () => '{"type":"rate_limits.updated","rate_limits":[]}',
      },
      SPEECH_RATE,
    );
    if (this.speech.faults.reach('open')) return;
    if (!options.greeted)
      this.send({
        type: 'session.created',
        event_id: eventId(),
        session: { id: `sess_${randomBytes(8).toString('hex')}`, object: 'realtime.session', model: options.model },
      });
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  /** GA `response.output_audio.*`, beta `response.audio.*`. */
  private name(suffix: string): string {
    return `response.${this.options.beta ? '' : 'output_'}${suffix}`;
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.speech.faults.gone) return;
    let event: Record<string, unknown>;
    try {
      if (isBinary) throw new Error();
      event = JSON.parse(data.toString('utf8')) as typeof event;
      if (typeof event !== 'object' || event === null) throw new Error();
    } catch {
      return this.speech.send(errorEvent('invalid_json', 'The message is not valid JSON.'));
    }
    switch (event.type) {
      case 'session.update':
        return this.send({ type: 'session.updated', event_id: eventId(), session: event.session ?? {} });
      case 'conversation.item.create': {
        const item = (event.item ?? {}) as { content?: Array<{ type?: unknown; text?: unknown }> };
        const texts = (item.content ?? []).filter((c) => c.type === 'input_text' && typeof c.text === 'string').map((c) => c.text as string);
        if (texts.length === 0) return this.speech.send(errorEvent('invalid_value', 'This server reads text aloud: give the item input_text content.'));
        this.text.push(...texts);
        return this.send({
          type: this.options.beta ? 'conversation.item.created' : 'conversation.item.added',
          event_id: eventId(),
          item: { id: `item_${randomBytes(6).toString('hex')}`, ...item },
        });
      }
      case 'response.create':
        return this.respond();
      default:
        return this.speech.send(errorEvent('invalid_value', `Unsupported event type: ${String(event.type)}`));
    }
  }

  private respond(): void {
    const text = this.text.join('');
    this.text = [];
    const id = `resp_${++this.responses}_${randomBytes(4).toString('hex')}`;
    const ids = { response_id: id, item_id: `item_${id}`, output_index: 0, content_index: 0 };
    this.send({ type: 'response.created', event_id: eventId(), response: { id, object: 'realtime.response', status: 'in_progress' } });
    this.speech.speak(text, {
      start: () => {
        if (this.ctx.emptyDeltas) this.send({ type: this.name('audio.delta'), event_id: eventId(), ...ids, delta: '' });
      },
      chunk: (pcm) =>
        this.speech.send(
          `{"type":"${this.name('audio.delta')}","event_id":"${eventId()}","response_id":"${id}","item_id":"${ids.item_id}","output_index":0,"content_index":0,"delta":"${base64Of(pcm)}"}`,
        ),
      done: () => {
        this.send({ type: this.name('audio.done'), event_id: eventId(), ...ids });
        this.send({ type: this.name('audio_transcript.done'), event_id: eventId(), ...ids, transcript: text });
        this.send({
          type: 'response.done',
          event_id: eventId(),
          response: { id, object: 'realtime.response', status: 'completed', usage: { input_tokens: text.length, output_tokens: 0, total_tokens: text.length } },
        });
      },
      error: (code) => {
        this.speech.send(errorEvent(code, 'The response failed.'));
        this.send({
          type: 'response.done',
          event_id: eventId(),
          response: { id, object: 'realtime.response', status: 'failed', status_details: { type: 'failed', error: { type: 'server_error', code } } },
        });
      },
    });
  }

  private send(event: object): void {
    this.speech.send(JSON.stringify(event));
  }
}

function errorEvent(code: string, message: string): string {
  return JSON.stringify({ type: 'error', event_id: eventId(), error: { type: 'invalid_request_error', code, message, param: null, event_id: null } });
}

function eventId(): string {
  return `event_${randomBytes(6).toString('hex')}`;
}
