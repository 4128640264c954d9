import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { EmissionQueue } from '../../server/sessions/emission-queue.js';
import { StreamRecognizer } from '../../server/models/recognizer.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SessionFaults } from '../../server/faults/session-faults.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { VLLM } from './spec.js';

/** vLLM takes PCM16 at 16 kHz. */
export const SAMPLE_RATE = 16_000;
const VOXTRAL_FRAME_MS = 80;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * One connection speaking vLLM's `/v1/realtime` dialect, validation errors included.
 * Text is scheduled as the audio containing it arrives, after the latency model's delay.
 * Faults strike at the open, the first append and the final commit, and shape the finals.
 */
export class VllmSession {
  private validated = false;
  private generating = false;
  private finalRequested = false;
  private recognizer: StreamRecognizer;
  /** Words heard before generation started; emitted when it starts. */
  private heldWords: string[] = [];
  private text = '';
  private deltaCount = 0;
  private audioBytes = 0;
  private framesHeard = 0;
  private readonly emissions = new EmissionQueue();
  /** Audio waiting to be ingested, when ingestion is slower than instant. */
  private readonly ingestion = new EmissionQueue();
  private ingestedAt = 0;
  private consumedBytes = 0;
  private readonly faults: SessionFaults;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: SessionContext,
  ) {
    this.recognizer = new StreamRecognizer(ctx.references, SAMPLE_RATE);
    this.faults = new SessionFaults(ctx.faults, ws, ctx.socket, {
      errorFrame: (code, message) => JSON.stringify({ type: 'error', error: message, code }),
      deltaFrame: () => ['{"type":"transcription.delta","delta":"', '"}'],
      noiseFrame: () => '{"type":"transcription.delta","delta":""}',
    });
    ws.on('close', () => this.dispose());
    if (this.faults.reach('open')) return;
    this.send({ type: 'session.created', id: `sess-${randomBytes(8).toString('hex')}`, created: Math.floor(Date.now() / 1000) });
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.faults.gone) return;
    if (isBinary) {
      this.ws.close(1003, 'binary frames are not supported');
      return;
    }
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data.toString('utf8')) as typeof event;
      if (typeof event !== 'object' || event === null) throw new Error();
    } catch {
      return this.error('invalid_json', 'Invalid JSON');
    }
    switch (event.type) {
      case 'session.update':
        return this.onSessionUpdate(event);
      case 'input_audio_buffer.append':
        return this.onAppend(event);
      case 'input_audio_buffer.commit': {
        const final = event.final === true;
        return this.ingest(0, () => this.onCommit(final)); // after the audio before it
      }
      default:
        return this.error('unknown_event', `Unknown event type: ${String(event.type)}`);
    }
  }

  private onSessionUpdate(event: Record<string, unknown>): void {
    if (typeof event.model !== 'string') return this.error('invalid_event', 'Missing required field: model');
    if (!this.ctx.servedModels.includes(event.model)) {
      return this.error('model_not_found', `The model \`${event.model}\` does not exist.`);
    }
    this.validated = true;
  }

  private onAppend(event: Record<string, unknown>): void {
    const audio = event.audio;
    if (typeof audio !== 'string' || audio.length % 4 !== 0 || !BASE64.test(audio)) {
      return this.error('invalid_audio', 'Invalid audio: expected base64-encoded PCM16');
    }
    const pcm = Buffer.from(audio, 'base64');
    if (pcm.length === 0 || pcm.length % 2 !== 0) return this.error('invalid_audio', 'Invalid audio: empty or odd-length PCM16 chunk');
    this.audioBytes += pcm.length;
    if (this.audioBytes > this.ctx.maxAudioBytes) return this.error('invalid_audio', 'Invalid audio: the session exceeds the maximum audio size');
    if (this.faults.reach('streaming')) return;
    this.ingest((pcm.length / 2 / SAMPLE_RATE) * 1000, () => this.consume(pcm));
  }

  /**
   * Runs `action` once the audio queued before it, and `audioMs` more, has been
   * ingested at the server's ingest speed; at once when ingestion is instant.
   */
  private ingest(audioMs: number, action: () => void): void {
    const now = performance.now();
    if (this.ctx.ingestSpeed === Infinity && this.ingestedAt <= now) return action();
    this.ingestedAt = Math.max(now, this.ingestedAt) + audioMs / this.ctx.ingestSpeed;
    this.ingestion.push(this.ingestedAt, action);
  }

  /** Audio taken in by the model: recognized, scheduled, and acknowledged when asked to. */
  private consume(pcm: Buffer): void {
    this.consumedBytes += pcm.length;
    if (this.ctx.progressAcks) this.send({ type: 'progress', audio_bytes: this.consumedBytes });
    const words = this.faults.words(this.recognizer.feed(pcm)).map((w) => w.text);
    const frames = Math.floor(this.recognizer.receivedMs / VOXTRAL_FRAME_MS);
    const emptyFrames = this.ctx.emptyDeltas ? Math.max(0, frames - this.framesHeard - words.length) : 0;
    this.framesHeard = frames;
    if (!this.generating) {
      this.heldWords.push(...words);
      return;
    }
    for (let i = 0; i < emptyFrames; i++) this.schedule('');
    for (const word of words) this.schedule(word);
  }

  private onCommit(final: boolean): void {
    if (final && this.faults.reach('final')) return;
    if (!this.validated) {
      return this.error('model_not_validated', 'Model not validated. Make sure to validate the model by sending a session.update event.');
    }
    if (!this.generating) {
      this.generating = true;
      for (const word of this.heldWords.splice(0)) this.schedule(word);
    } else if (!final) {
      return; // vLLM ignores a start commit while a generation runs.
    }
    if (final && !this.finalRequested) this.finalize();
  }

  private finalize(): void {
    this.finalRequested = true;
    for (const word of this.faults.words(this.recognizer.flush())) this.schedule(word.text);
    if (this.faults.has('never-finalize')) return;
    this.emissions.push(performance.now() + this.ctx.latency.finalize(this.ctx.openSessions()), () => {
      this.sendDone();
      if (this.faults.has('duplicate-final')) this.sendDone();
      this.reset();
    });
  }

  private sendDone(): void {
    this.send({
      type: 'transcription.done',
      text: this.text,
      usage: { prompt_tokens: 0, completion_tokens: this.deltaCount, total_tokens: this.deltaCount, prompt_tokens_details: null },
    });
  }

  /** Emits a delta after the model's delay, in order after every earlier emission. */
  private schedule(word: string): void {
    const delta = word === '' ? '' : ` ${word}`;
    this.emissions.push(performance.now() + this.ctx.latency.delay(this.ctx.openSessions()), () => {
      this.text += delta;
      this.deltaCount++;
      this.send({ type: 'transcription.delta', delta });
      if (delta !== '' && this.faults.once('early-final')) this.sendDone();
    });
  }

  /** After `transcription.done` the socket can carry another utterance. */
  private reset(): void {
    this.generating = false;
    this.finalRequested = false;
    this.recognizer = new StreamRecognizer(this.ctx.references, SAMPLE_RATE);
    this.heldWords = [];
    this.text = '';
    this.deltaCount = 0;
    this.framesHeard = 0;
  }

  private error(code: string, message: string): void {
    this.send({ type: 'error', error: message, code });
  }

  private send(event: object): void {
    this.faults.deliver(JSON.stringify(event));
  }

  private dispose(): void {
    this.emissions.clear();
    this.ingestion.clear();
  }
}

/** vLLM's dialect is what the shared `/v1/realtime` speaks when the upgrade asks for no other. */
export const simulatedVllm = {
  ...VLLM,
  inputRate: SAMPLE_RATE,
  onSharedPath: () => true,
  open: (ws, ctx) => new VllmSession(ws, ctx),
} satisfies SimulatedDialect;
