import type WebSocket from 'ws';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { base64Of } from '../../server/models/speech-synth.js';
import { SpeechStream } from '../../server/sessions/speech-stream.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { ELEVENLABS } from './spec.js';

/** Characters buffered before generation starts unprompted: the first value of ElevenLabs' default `chunk_length_schedule`. */
const FIRST_CHUNK_CHARS = 120;
/** Seconds without a message before the server gives up (`inactivity_timeout`, default 20). */
const DEFAULT_INACTIVITY_S = 20;
/**
 * One connection speaking ElevenLabs' `stream-input`: the opening `{"text": " "}`,
 * text buffered until 120 characters, a `flush: true` or the end of input
 * `{"text": ""}`, each generation's audio as `{"audio": "<b64>", "isFinal": false}`
 * messages, and after the end of input `{"isFinal": true}` and a close. The output
 * format must be `pcm_<rate>`. Errors: `{"message", "error", "code": 1008}`, then close 1008.
 */
export class ElevenLabsSession {
  private readonly speech: SpeechStream;
  private opened = false;
  private buffer = '';
  private ended = false;
  private idle: NodeJS.Timeout | undefined;
  private readonly inactivityMs: number;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: SessionContext,
    query: URLSearchParams,
  ) {
    const rate = /^pcm_(\d+)$/.exec(query.get('output_format') ?? '')?.[1];
    this.speech = new SpeechStream(
      ws,
      ctx,
      {
        errorFrame: (code, message) => JSON.stringify({ message, error: code, code: 1008 }),
        deltaFrame: () => ['{"audio":"', '","isFinal":false}'],
        noiseFrame: () => '{"audio":null,"isFinal":false}',
      },
      Number(rate ?? 0),
    );
    this.inactivityMs = Number(query.get('inactivity_timeout') ?? DEFAULT_INACTIVITY_S) * 1000;
    ws.on('close', () => clearTimeout(this.idle));
    if (this.speech.faults.reach('open')) return;
    if (rate === undefined) {
      this.fail('invalid_output_format', `output_format ${query.get('output_format') ?? '(none)'} is not served here; ask for pcm_<rate>`);
      return;
    }
    this.watch();
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.speech.faults.gone || this.ended) return;
    this.watch();
    let message: { text?: unknown; flush?: unknown };
    try {
      if (isBinary) throw new Error();
      message = JSON.parse(data.toString('utf8')) as typeof message;
      if (typeof message !== 'object' || message === null || typeof message.text !== 'string') throw new Error();
    } catch {
      return this.fail('invalid_input_message', 'each message must be a JSON object with a string "text"');
    }
    const text = message.text;
    if (!this.opened) {
      if (text !== ' ') return this.fail('invalid_input_message', 'the first message must have "text": " " (one space)');
      this.opened = true;
      return;
    }
    if (text === '') {
      this.ended = true;
      clearTimeout(this.idle);
      this.generate();
      return this.speech.speak('', { chunk: () => {}, done: () => this.finish(), error: () => {} });
    }
    this.buffer += text;
    if (message.flush === true || this.buffer.length >= FIRST_CHUNK_CHARS) this.generate();
  }

  /** Speaks what is buffered, up to its last word boundary unless the input has ended. */
  private generate(): void {
    const cut = this.ended || /\s$/.test(this.buffer) ? this.buffer.length : this.buffer.search(/\S+$/);
    const text = this.buffer.slice(0, cut).trim();
    this.buffer = this.buffer.slice(cut);
    if (text === '') return;
    let first = true;
    this.speech.speak(text, {
      chunk: (pcm) => {
        if (first && this.ctx.emptyDeltas) this.speech.send('{"audio":"","isFinal":false}');
        first = false;
        this.speech.send(`{"audio":"${base64Of(pcm)}","isFinal":false,"normalizedAlignment":null,"alignment":null}`);
      },
      done: () => {},
      error: (code) => this.fail(code, 'generation failed'),
    });
  }

  /** Every generation has played: the final message, then the server closes. */
  private finish(): void {
    this.speech.send('{"isFinal":true}');
    this.ws.close(1000);
  }

  private fail(code: string, message: string): void {
    this.speech.send(JSON.stringify({ message, error: code, code: 1008 }));
    this.ws.close(1008, code);
  }

  private watch(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.fail('input_timeout_exceeded', `no message for ${this.inactivityMs / 1000} s`), this.inactivityMs);
  }
}

export const simulatedElevenLabs = { ...ELEVENLABS, open: (ws, ctx, { url }) => new ElevenLabsSession(ws, ctx, url.searchParams) } satisfies SimulatedDialect;
