import type WebSocket from 'ws';
import type { SessionContext } from './session-context.js';
import { SessionFaults, type FaultWire } from '../faults/session-faults.js';
import { playSpeech, renderedSpeech, type SpeechEnd } from '../models/speech-synth.js';

/** What one generation tells its session's dialect, each at its due time. */
export interface SpeechSink {
  /** Generation has started (before any audio; the dialect may announce it). */
  start?(): void;
  chunk(pcm: Buffer, index: number): void;
  /** The last chunk is out. */
  done(totalBytes: number): void;
  /** The latency model's error-event fault: the generation failed after `sentBytes` of audio. */
  error(code: string, sentBytes: number): void;
}

/**
 * What the simulated WebSocket speech sessions share: each forced synthesis (an
 * `input.done`, an end of text, a `response.create`) speaks its text on the speech
 * latency model, one generation after another in the order asked, with the session's
 * faults: those of the fault points strike at the open, the speech faults (stall,
 * slow chunks, cut stream, error event) shape each generation's plan, and a cut drops
 * the connection.
 */
export class SpeechStream {
  readonly faults: SessionFaults;
  private readonly queue: Array<{ text: string; sink: SpeechSink; sampleRate: number }> = [];
  private stop: (() => void) | undefined;

  constructor(
    ws: WebSocket,
    private readonly ctx: SessionContext,
    wire: FaultWire,
    private readonly sampleRate: number,
  ) {
    this.faults = new SessionFaults(ctx.faults, ws, ctx.socket, wire);
    ws.on('close', () => {
      this.stop?.();
      this.queue.length = 0;
    });
  }

  /** Whether a generation is playing or waiting. */
  get busy(): boolean {
    return this.stop !== undefined || this.queue.length > 0;
  }

  /** Speaks `text` once every generation asked before it has ended, at the session's rate unless the request names its own (Cartesia's). */
  speak(text: string, sink: SpeechSink, sampleRate = this.sampleRate): void {
    this.queue.push({ text, sink, sampleRate });
    if (!this.stop) this.next();
  }

  /** Sends a frame unless a fault has silenced the server or the connection is gone. */
  send(frame: string | Buffer): void {
    this.faults.deliver(frame);
  }

  private next(): void {
    const item = this.queue.shift();
    if (!item || this.faults.gone) return;
    const { text, sink, sampleRate } = item;
    // The latency model counts from the request, so synthesizing the audio takes none of its first-audio delay.
    const startMs = performance.now();
    const pcm = renderedSpeech(text, sampleRate, this.ctx.speech.voice);
    const plan = this.ctx.speech.latency.plan(pcm, sampleRate, this.ctx.openSessions(), this.ctx.faults);
    let sentBytes = 0;
    sink.start?.();
    this.stop = playSpeech(plan, startMs, {
      chunk: (piece, index) => {
        sentBytes += piece.length;
        sink.chunk(piece, index);
      },
      end: (end: SpeechEnd) => {
        this.stop = undefined;
        if (end.kind === 'cut') {
          this.faults.gone = true;
          this.ctx.socket.destroy();
          return;
        }
        if (end.kind === 'error') sink.error(end.code, sentBytes);
        else sink.done(sentBytes);
        this.next();
      },
    });
  }
}
