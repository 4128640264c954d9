import type WebSocket from 'ws';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SPEECH_RATE } from '../../server/sessions/speech-endpoint.js';
import { base64Of } from '../../server/models/speech-synth.js';
import { SpeechStream } from '../../server/sessions/speech-stream.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { CARTESIA } from './spec.js';

/** The `sample_rate`s Cartesia's raw output formats take. */
const CARTESIA_RATES = [8_000, 16_000, 22_050, 24_000, 44_100, 48_000];

/**
 * One connection speaking Cartesia's `/tts/websocket`: generation requests buffered per
 * `context_id` while `continue` is true, spoken at the end of a context (`continue:
 * false`) as base64 `chunk` messages of raw `pcm_s16le` at the request's `sample_rate`,
 * then `done`. A bad request is an `error` event (`status_code` 400); the connection stays open.
 */
export class CartesiaSession {
  private readonly speech: SpeechStream;
  private readonly text = new Map<string, string>();

  constructor(ws: WebSocket, ctx: SessionContext) {
    this.speech = new SpeechStream(
      ws,
      ctx,
      {
        errorFrame: (code, message) => JSON.stringify({ type: 'error', done: true, status_code: 500, error_code: code, message }),
        deltaFrame: () => ['{"type":"chunk","data":"', '","done":false}'],
        noiseFrame: () => '{"type":"timestamps","word_timestamps":{"words":[],"start":[],"end":[]}}',
      },
      SPEECH_RATE,
    );
    if (this.speech.faults.reach('open')) return;
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.speech.faults.gone) return;
    let request: {
      context_id?: unknown;
      transcript?: unknown;
      continue?: unknown;
      output_format?: { container?: unknown; encoding?: unknown; sample_rate?: unknown };
    };
    try {
      if (isBinary) throw new Error();
      request = JSON.parse(data.toString('utf8')) as typeof request;
      if (typeof request !== 'object' || request === null) throw new Error();
    } catch {
      return this.error(undefined, 'the message is not a JSON object');
    }
    const context = typeof request.context_id === 'string' ? request.context_id : undefined;
    const format = request.output_format ?? {};
    if (typeof request.transcript !== 'string') return this.error(context, 'transcript must be a string');
    const rate = CARTESIA_RATES.find((r) => r === format.sample_rate);
    if (format.container !== 'raw' || format.encoding !== 'pcm_s16le' || rate === undefined) {
      return this.error(context, `this server speaks output_format {container: "raw", encoding: "pcm_s16le", sample_rate: ${CARTESIA_RATES.join('|')}}`);
    }
    const key = context ?? '';
    const text = (this.text.get(key) ?? '') + request.transcript;
    if (request.continue === true) return void this.text.set(key, text);
    this.text.delete(key);
    const ids = context !== undefined ? { context_id: context } : {};
    const tail = context !== undefined ? `,"context_id":${JSON.stringify(context)}` : '';
    // `step_time`: ms the server spent on this chunk, since the generation started or the chunk before.
    let stepFrom = 0;
    this.speech.speak(
      text.trim(),
      {
        start: () => (stepFrom = performance.now()),
        chunk: (pcm) => {
          const now = performance.now();
          const stepTime = Math.round((now - stepFrom) * 1000) / 1000;
          stepFrom = now;
          this.speech.send(`{"type":"chunk","data":"${base64Of(pcm)}","done":false,"status_code":206,"step_time":${stepTime}${tail}}`);
        },
        done: () => this.speech.send(JSON.stringify({ type: 'done', done: true, status_code: 200, ...ids })),
        error: (code) =>
          this.speech.send(JSON.stringify({ type: 'error', done: true, status_code: 500, error_code: code, message: 'generation failed', ...ids })),
      },
      rate,
    );
  }

  private error(context: string | undefined, message: string): void {
    this.speech.send(
      JSON.stringify({ type: 'error', done: true, status_code: 400, title: 'Bad Request', message, ...(context !== undefined ? { context_id: context } : {}) }),
    );
  }
}

export const simulatedCartesia = { ...CARTESIA, open: (ws, ctx) => new CartesiaSession(ws, ctx) } satisfies SimulatedDialect;
