import { createHash, randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { EmissionQueue } from '../../server/sessions/emission-queue.js';
import { StreamRecognizer, type HeardWord } from '../../server/models/recognizer.js';
import { SpeakerLabeller, type WordLabels } from '../../server/models/speakers.js';
import { StreamingVad } from '../../server/models/vad.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SessionFaults } from '../../server/faults/session-faults.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { DEEPGRAM } from './spec.js';

/** The rate the simulated server hears linear16 at. */
export const SAMPLE_RATE = 16_000;
/** Deepgram's endpointing when the query names none: 10 ms of silence. */
const DEFAULT_ENDPOINTING_MS = 10;
/** A range of interim words longer than this is made final at its next word, as Deepgram finalizes long speech in pieces. */
const SEGMENT_MS = 2_000;
/** With neither audio nor a message for this long the stream is closed with NET-0001. */
const IDLE_CLOSE_MS = 10_000;
/** A word ending this soon after the endpoint still belongs to that utterance. */
const WORD_TOLERANCE_MS = 100;
const NET_0001 = 'Deepgram did not receive audio data or a text message within the timeout window. See https://dpgr.am/net0001';

/**
 * One connection speaking Deepgram's `/v1/listen`: the query sets the stream up
 * (linear16 at 16 kHz only; `endpointing`, `vad_events`, `utterance_end_ms`), binary
 * audio is recognized as it arrives and its words come back as interim `Results`
 * (the text of the range not yet final), a range made final once it runs past
 * SEGMENT_MS, at an endpoint (`speech_final`, then `UtteranceEnd` when asked for), at
 * a `Finalize` (`from_finalize`) or at `CloseStream` (then `Metadata` and a close);
 * `UtteranceEnd` once `utterance_end_ms` of audio followed the last finalized word.
 * `Configure` gets `ConfigureSuccess` or `ConfigureFailure`; `KeepAlive` no answer; a silent client is closed with NET-0001; a message it
 * cannot read gets an `Error`. Times on the wire are seconds of the stream.
 */
export class ListenSession {
  private readonly recognizer: StreamRecognizer;
  private readonly vad: StreamingVad | undefined;
  private readonly vadEvents: boolean;
  /** `utterance_end_ms` (with interim results), and the end of the last finalized word no `UtteranceEnd` has followed yet (ms of the stream). */
  private readonly utteranceEndMs: number | undefined;
  private lastFinalWordEndMs: number | undefined;
  /** The keyterms in effect: the query's `keyterm`s, then each `Configure`'s. */
  private keyterms: string[];
  private readonly emissions = new EmissionQueue();
  private readonly faults: SessionFaults;
  private readonly requestId = randomUUID();
  private readonly hash = createHash('sha256');
  /** Every Results' `metadata`: the request, and the model by name and by UUID. */
  private readonly metadata: object;
  /** Words heard and not yet in a final range (with their speaker, given `diarize=true`), and where that range starts (ms of the stream). */
  private pending: LabelledWord[] = [];
  private readonly speakers: SpeakerLabeller | undefined;
  private rangeStartMs = 0;
  private idle: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: SessionContext,
    query: URLSearchParams,
  ) {
    this.recognizer = new StreamRecognizer(ctx.references, SAMPLE_RATE);
    this.speakers = query.get('diarize') === 'true' ? new SpeakerLabeller(ctx.speakers, ctx.latency.options.seed) : undefined;
    this.faults = new SessionFaults(ctx.faults, ws, ctx.socket, {
      errorFrame: (code, description) => JSON.stringify({ type: 'Error', variant: 'ServerError', description, code }),
      deltaFrame: () => {
        const [head, tail] = JSON.stringify(this.results([{ text: '\u0000', endMs: 0 }], 0, 0, {})).split('\\u0000');
        return [head!, tail!];
      },
      noiseFrame: () => JSON.stringify(this.results([], 0, 0, {})),
    });
    const endpointing = query.get('endpointing');
    const silenceMs = endpointing === null ? DEFAULT_ENDPOINTING_MS : Number(endpointing);
    this.vad =
      endpointing === 'false' || !(silenceMs > 0)
        ? undefined
        : new StreamingVad(SAMPLE_RATE, { threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: silenceMs });
    this.vadEvents = query.get('vad_events') === 'true';
    this.keyterms = query.getAll('keyterm');
    this.metadata = {
      request_id: this.requestId,
      model_info: { name: query.get('model') ?? DEEPGRAM.defaultModel, version: 'simulated', arch: 'simulated' },
      model_uuid: modelUuid(query.get('model') ?? DEEPGRAM.defaultModel),
    };
    const utteranceEndMs = Number(query.get('utterance_end_ms'));
    if (query.has('utterance_end_ms') && query.get('interim_results') === 'true' && utteranceEndMs > 0) this.utteranceEndMs = utteranceEndMs;
    ws.on('close', () => this.dispose());
    if (this.faults.reach('open')) return;
    if (query.get('encoding') !== 'linear16' || Number(query.get('sample_rate')) !== SAMPLE_RATE) {
      this.ws.close(1008, `this server hears encoding=linear16 at sample_rate=${SAMPLE_RATE}`);
      return;
    }
    this.awake();
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.faults.gone || this.closing) return;
    this.awake();
    if (isBinary) return this.onAudio(data);
    let message: { type?: unknown };
    try {
      message = JSON.parse(data.toString('utf8')) as typeof message;
      if (typeof message !== 'object' || message === null) throw new Error();
    } catch {
      return this.error('SchemaError', 'the message could not be parsed as a JSON object', data.toString('utf8').slice(0, 200));
    }
    switch (message.type) {
      case 'KeepAlive':
        return;
      case 'Configure':
        return this.configure(message);
      case 'Finalize':
        if (this.faults.reach('final')) return;
        return this.finalize({ from_finalize: true });
      case 'CloseStream':
        this.closing = true;
        this.finalize({});
        return this.emit(() => {
          this.send({
            type: 'Metadata',
            transaction_key: 'deprecated',
            request_id: this.requestId,
            sha256: this.hash.digest('hex'),
            created: new Date().toISOString(),
            duration: this.recognizer.receivedMs / 1000,
            channels: 1,
          });
          this.ws.close(1000);
        });
      default:
        return this.error('SchemaError', `unknown message type ${JSON.stringify(message.type)}`, data.toString('utf8').slice(0, 200));
    }
  }

  /**
   * A mid-stream update, answered by exactly one `ConfigureSuccess` (with the keyterms now
   * in effect) or `ConfigureFailure` (the stream keeps its settings), in order after what
   * was already due: `keyterms` must be an array of strings (or null), `features` an object.
   */
  private configure(message: Record<string, unknown>): void {
    const { keyterms, features } = message;
    const valid =
      (keyterms === undefined || keyterms === null || (Array.isArray(keyterms) && keyterms.every((k) => typeof k === 'string'))) &&
      (features === undefined || (typeof features === 'object' && features !== null && !Array.isArray(features)));
    if (!valid) {
      const description = 'keyterms must be an array of strings and features an object';
      return this.emit(() => this.send({ type: 'ConfigureFailure', request_id: this.requestId, description }));
    }
    if (Array.isArray(keyterms)) this.keyterms = keyterms;
    this.emit(() => this.send({ type: 'ConfigureSuccess', request_id: this.requestId, keyterms: this.keyterms }));
  }

  private onAudio(pcm: Buffer): void {
    if (pcm.length % 2 !== 0) {
      this.ws.close(1002, 'DATA-0000: the audio could not be decoded as linear16');
      return;
    }
    if (this.faults.reach('streaming')) return;
    this.hash.update(pcm);
    const vad = this.vad?.feed(pcm) ?? [];
    for (const event of vad) {
      if (event.type === 'started' && this.vadEvents) this.emit(() => this.send({ type: 'SpeechStarted', channel: [0], timestamp: event.audioStartMs / 1000 }));
    }
    for (const word of this.labelled(this.recognizer.feed(pcm))) {
      this.pending.push(word);
      if (word.endMs - this.rangeStartMs > SEGMENT_MS) this.final(this.pending.length, word.endMs, {});
      else this.interim();
    }
    for (const event of vad) {
      if (event.type === 'started') continue;
      const endMs = event.audioEndMs + WORD_TOLERANCE_MS;
      const words = this.pending.filter((w) => w.endMs <= endMs).length;
      this.final(words, Math.max(event.audioEndMs, this.rangeStartMs), { speech_final: true });
    }
    this.utteranceGap();
  }

  /**
   * `UtteranceEnd` once `utterance_end_ms` of audio has followed the last finalized word
   * with no word heard since, whether endpointing, a long range or a `Finalize` finalized
   * it: once per last word, naming where it ended.
   */
  private utteranceGap(): void {
    const last = this.lastFinalWordEndMs;
    if (this.utteranceEndMs === undefined || last === undefined || this.pending.length > 0) return;
    if (this.recognizer.receivedMs - last < this.utteranceEndMs) return;
    this.lastFinalWordEndMs = undefined;
    this.emit(() => this.send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: last / 1000 }));
  }

  /** Finalizes everything heard (a `Finalize`, or the end of the stream), after the model's final latency. */
  private finalize(flags: { from_finalize?: true }): void {
    this.pending.push(...this.labelled(this.recognizer.flush()));
    if (this.faults.has('never-finalize') && flags.from_finalize) return;
    this.final(this.pending.length, this.recognizer.receivedMs, flags, true);
    if (this.faults.has('duplicate-final') && flags.from_finalize) this.final(0, this.recognizer.receivedMs, flags, true);
  }

  /** The range so far as an interim Results, after the model's word delay. */
  private interim(): void {
    const words = [...this.pending];
    const endMs = words[words.length - 1]!.endMs;
    this.emit(() => this.send(this.results(words, this.rangeStartMs, endMs, { is_final: false }, true)), this.ctx.latency.delay(this.ctx.openSessions()));
  }

  /** The first `count` pending words as a final range ending at `endMs`; a flush (`slow`) takes the model's final latency. */
  private final(count: number, endMs: number, flags: { speech_final?: true; from_finalize?: true }, slow = false): void {
    const words = this.pending.splice(0, count);
    if (words.length > 0) this.lastFinalWordEndMs = words[words.length - 1]!.endMs;
    const start = this.rangeStartMs;
    this.rangeStartMs = Math.max(start, endMs);
    const open = this.ctx.openSessions();
    const delay = slow ? this.ctx.latency.finalize(open) : this.ctx.latency.delay(open);
    this.emit(() => this.send(this.results(words, start, Math.max(start, endMs), { is_final: true, speech_final: false, ...flags })), delay);
  }

  /** Heard words after the session's faults, each given its speakers when diarizing (once: its final label, and the one interim results show). */
  private labelled(words: HeardWord[]): LabelledWord[] {
    const speakers = this.speakers;
    return this.faults.words(words).map((w) => ({ ...w, ...speakers?.labels(w) }));
  }

  /**
   * A Results of `words`: their transcript, and with `diarize=true` each word's times
   * (seconds) and speaker; an interim one (`partial`) shows each word's first label, its
   * times moved by the server's re-timing.
   */
  private results(words: readonly LabelledWord[], startMs: number, endMs: number, flags: object, partial = false): object {
    const transcript = words.map((w) => w.text).join(' ');
    const shiftMs = partial ? this.ctx.speakers.retimeMs : 0;
    const listed = this.speakers
      ? words.map((w) => {
          const speaker = partial ? w.shown : w.label;
          return {
            word: w.text,
            punctuated_word: w.text,
            start: ((w.startMs ?? w.endMs) + shiftMs) / 1000,
            end: (w.endMs + shiftMs) / 1000,
            confidence: 0.99,
            ...(speaker !== undefined ? { speaker } : {}),
          };
        })
      : [];
    return {
      type: 'Results',
      channel_index: [0, 1],
      duration: (endMs - startMs) / 1000,
      start: startMs / 1000,
      ...flags,
      channel: { alternatives: [{ transcript, confidence: transcript ? 0.99 : 0, words: listed }] },
      metadata: this.metadata,
    };
  }

  /** Sends after `delayMs`, in order after every earlier emission. */
  private emit(action: () => void, delayMs = 0): void {
    this.emissions.push(performance.now() + delayMs, action);
  }

  /** Audio or a message arrived: the idle clock starts over. */
  private awake(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.ws.close(1011, NET_0001), IDLE_CLOSE_MS);
  }

  private error(variant: string, description: string, message: string): void {
    this.send({ type: 'Error', variant, description, message });
  }

  private send(event: object): void {
    this.faults.deliver(JSON.stringify(event));
  }

  private dispose(): void {
    clearTimeout(this.idle);
    this.emissions.clear();
  }
}

/** A model's UUID, stable per name (Deepgram's names one version of the model). */
function modelUuid(model: string): string {
  const hex = createHash('sha256').update(model).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A heard word with its speaker numbers: final, and shown first. */
type LabelledWord = HeardWord & WordLabels;

export const simulatedDeepgram = {
  ...DEEPGRAM,
  inputRate: SAMPLE_RATE,
  open: (ws, ctx, { url }) => new ListenSession(ws, ctx, url.searchParams),
} satisfies SimulatedDialect;
