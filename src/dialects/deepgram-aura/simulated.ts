import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SpeechStream } from '../../server/sessions/speech-stream.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { DEEPGRAM_AURA } from './spec.js';

/**
 * One connection speaking Deepgram Aura's `/v1/speak`: `Metadata` on connect, `Speak`
 * text buffered, each `Flush` spoken as binary linear16 at the query's `sample_rate`
 * and answered by `Flushed {sequence_id}`, `Clear` dropping the buffer, `Close`
 * closing. A message it does not know is a `Warning`; a failed generation an `Error`
 * and a close 1011.
 */
export class AuraSession {
  private readonly speech: SpeechStream;
  private text = '';
  private flushes = 0;

  constructor(
    private readonly ws: WebSocket,
    ctx: SessionContext,
    query: URLSearchParams,
  ) {
    const rate = Number(query.get('sample_rate') ?? 24_000);
    this.speech = new SpeechStream(
      ws,
      ctx,
      {
        errorFrame: (code, description) => JSON.stringify({ type: 'Error', code, description }),
        deltaFrame: () => ['{"type":"Warning","description":"', '","code":"noise"}'],
        noiseFrame: () => '{"type":"Warning","description":"noise","code":"noise"}',
      },
      rate,
    );
    if (this.speech.faults.reach('open')) return;
    if (query.get('encoding') !== 'linear16' || !(rate > 0)) {
      this.speech.send(JSON.stringify({ type: 'Error', code: 'UNSUPPORTED_ENCODING', description: 'this server speaks encoding=linear16 with a sample_rate' }));
      this.ws.close(1008, 'unsupported encoding');
      return;
    }
    this.speech.send(
      JSON.stringify({
        type: 'Metadata',
        request_id: randomUUID(),
        model_name: query.get('model') ?? 'aura',
        model_version: 'simulated',
        model_uuid: randomUUID(),
      }),
    );
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.speech.faults.gone) return;
    let message: { type?: unknown; text?: unknown };
    try {
      if (isBinary) throw new Error();
      message = JSON.parse(data.toString('utf8')) as typeof message;
      if (typeof message !== 'object' || message === null) throw new Error();
    } catch {
      return this.warn('INVALID_MESSAGE', 'messages must be JSON objects');
    }
    switch (message.type) {
      case 'Speak':
        if (typeof message.text !== 'string') return this.warn('INVALID_MESSAGE', 'Speak needs a string "text"');
        this.text += message.text;
        return;
      case 'Flush':
        return this.flush();
      case 'Clear':
        this.text = '';
        return this.speech.send(JSON.stringify({ type: 'Cleared', sequence_id: this.flushes }));
      case 'Close':
        this.ws.close(1000);
        return;
      default:
        return this.warn('UNKNOWN_MESSAGE_TYPE', `unknown message type ${String(message.type)}`);
    }
  }

  private flush(): void {
    const text = this.text.trim();
    this.text = '';
    const sequence = this.flushes++;
    this.speech.speak(text, {
      chunk: (pcm) => this.speech.send(pcm),
      done: () => this.speech.send(JSON.stringify({ type: 'Flushed', sequence_id: sequence })),
      error: (code) => {
        this.speech.send(JSON.stringify({ type: 'Error', code, description: 'generation failed' }));
        this.ws.close(1011, code);
      },
    });
  }

  private warn(code: string, description: string): void {
    this.speech.send(JSON.stringify({ type: 'Warning', code, description }));
  }
}

export const simulatedDeepgramAura = { ...DEEPGRAM_AURA, open: (ws, ctx, { url }) => new AuraSession(ws, ctx, url.searchParams) } satisfies SimulatedDialect;
