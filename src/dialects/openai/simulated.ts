import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { EmissionQueue } from '../../server/sessions/emission-queue.js';
import type { HeardWord } from '../../server/models/recognizer.js';
import { StreamRecognizer } from '../../server/models/recognizer.js';
import { transcriptionTokens } from '../../server/models/transcription-usage.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SessionFaults } from '../../server/faults/session-faults.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { SEMANTIC_SILENCE_MS, tunedVad, type StreamingVad, type VadSettings } from '../../server/models/vad.js';
import { asksBeta, asksOpenai, OPENAI, OPENAI_MODELS } from './spec.js';

/** OpenAI's `audio/pcm` is PCM16 at 24 kHz. */
export const SAMPLE_RATE = 24_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** OpenAI refuses to commit less audio than this. */
const MIN_COMMIT_MS = 100;
/** A word ending this soon after speech stops still belongs to that turn. */
const WORD_TOLERANCE_MS = 100;

type TurnDetection =
  | null
  | { type: 'server_vad'; threshold?: number; prefix_padding_ms?: number; silence_duration_ms?: number }
  | { type: 'semantic_vad'; eagerness?: keyof typeof SEMANTIC_SILENCE_MS };

export interface OpenAISessionOptions {
  /** Legacy beta format: `transcription_session.*` events, `conversation.item.created`. */
  beta: boolean;
  /** Stream transcription deltas while speech is still arriving, instead of after the commit. */
  streamDuringSpeech: boolean;
  /** The transcription model the session starts with (the connection's `?model=`, or the server's default) until a session update names another. */
  model: string;
}

/**
 * One connection speaking the OpenAI Realtime transcription dialect (GA or beta):
 * session lifecycle, manual commits, an energy-based server VAD, and the
 * `gpt-4o-transcribe` habit of transcribing each item after it is committed.
 */
export class OpenAISession {
  private model: string;
  private language: string | null = null;
  private prompt = '';
  private turnDetection: TurnDetection = null;
  private vad: StreamingVad | undefined;
  private readonly recognizer: StreamRecognizer;
  /** Words heard and not yet given to an item. */
  private heard: HeardWord[] = [];
  /** The item the uncommitted audio belongs to, once there is some. */
  private item: { id: string; emitted: number } | undefined;
  private previousItemId: string | null = null;
  private bufferedMs = 0;
  private readonly emissions = new EmissionQueue();
  private readonly sessionId = `sess_${randomBytes(12).toString('hex')}`;
  private readonly faults: SessionFaults;
  /** Committed items whose final has not been sent yet. */
  private unfinished = 0;
  /** out-of-order-finals: an item's final, held until a later item's final is out. */
  private heldFinal: (() => void) | undefined;

  constructor(
    ws: WebSocket,
    private readonly ctx: SessionContext,
    private readonly options: OpenAISessionOptions,
  ) {
    this.model = options.model;
    this.recognizer = new StreamRecognizer(ctx.references, SAMPLE_RATE);
    this.faults = new SessionFaults(ctx.faults, ws, ctx.socket, {
      errorFrame: (code, message) => this.frame({ type: 'error', error: { type: 'server_error', code, message, param: null, event_id: null } }),
      // The frame ends in `"delta":""}`: its text goes between the quotes.
      deltaFrame: () => [
        this.frame({
          type: 'conversation.item.input_audio_transcription.delta',
          item_id: this.item?.id ?? this.newItemId(),
          content_index: 0,
          delta: '',
        }).slice(0, -2),
        '"}',
      ],
      noiseFrame: () => this.frame({ type: 'rate_limits.updated', rate_limits: [] }),
    });
    ws.on('close', () => this.emissions.clear());
    if (this.faults.reach('open')) return;
    this.send({ type: options.beta ? 'transcription_session.created' : 'session.created', session: this.describe() });
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.faults.gone) return;
    if (isBinary) return this.error('invalid_request_error', 'invalid_json', 'Binary frames are not supported; send JSON text frames.');
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data.toString('utf8')) as typeof event;
      if (typeof event !== 'object' || event === null) throw new Error();
    } catch {
      return this.error('invalid_request_error', 'invalid_json', 'Invalid JSON: the event could not be parsed.');
    }
    const update = this.options.beta ? 'transcription_session.update' : 'session.update';
    switch (event.type) {
      case update:
        return this.onUpdate(event.session);
      case 'input_audio_buffer.append':
        return this.onAppend(event.audio);
      case 'input_audio_buffer.commit':
        return this.onCommit();
      case 'input_audio_buffer.clear':
        this.heard = [];
        this.item = undefined;
        this.bufferedMs = 0;
        this.vad?.reset();
        return this.send({ type: 'input_audio_buffer.cleared' });
      default:
        return this.error(
          'invalid_request_error',
          'invalid_value',
          `Invalid value: '${String(event.type)}'. Supported values are: '${update}', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'input_audio_buffer.clear'.`,
          'type',
        );
    }
  }

  private onUpdate(session: unknown): void {
    const s = (typeof session === 'object' && session !== null ? session : {}) as Record<string, unknown>;
    const input = this.options.beta ? s : (((s.audio as Record<string, unknown> | undefined)?.input ?? {}) as Record<string, unknown>);
    if (!this.options.beta && s.type !== 'transcription') {
      return this.error(
        'invalid_request_error',
        'invalid_value',
        "Invalid value: the simulated server serves transcription sessions only (session.type 'transcription').",
        'session.type',
      );
    }
    const format = this.options.beta ? input.input_audio_format : input.format;
    const formatOk = format === undefined || (this.options.beta ? format === 'pcm16' : isPcm24k(format));
    if (!formatOk) {
      return this.error(
        'invalid_request_error',
        'invalid_value',
        'Invalid value: the simulated server accepts PCM16 at 24 kHz only.',
        this.options.beta ? 'session.input_audio_format' : 'session.audio.input.format',
      );
    }
    const transcription = (this.options.beta ? input.input_audio_transcription : input.transcription) as Record<string, unknown> | undefined;
    if (transcription?.model !== undefined) {
      if (typeof transcription.model !== 'string' || !this.ctx.servedModels.includes(transcription.model)) {
        return this.error(
          'invalid_request_error',
          'invalid_value',
          `Invalid value: '${typeof transcription.model === 'string' ? transcription.model : JSON.stringify(transcription.model)}'. Supported values are: ${this.ctx.servedModels.map((m) => `'${m}'`).join(', ')}.`,
          'session.audio.input.transcription.model',
        );
      }
      this.model = transcription.model;
    }
    if (typeof transcription?.language === 'string') this.language = transcription.language;
    if (typeof transcription?.prompt === 'string') this.prompt = transcription.prompt;
    if (input.turn_detection !== undefined) this.setTurnDetection(input.turn_detection as TurnDetection);
    this.send({ type: this.options.beta ? 'transcription_session.updated' : 'session.updated', session: this.describe() });
  }

  private setTurnDetection(td: TurnDetection): void {
    this.turnDetection = td;
    if (td === null) {
      this.vad = undefined;
      return;
    }
    const settings: VadSettings =
      td.type === 'server_vad'
        ? { threshold: td.threshold ?? 0.5, prefixPaddingMs: td.prefix_padding_ms ?? 300, silenceDurationMs: td.silence_duration_ms ?? 500 }
        : { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: SEMANTIC_SILENCE_MS[td.eagerness ?? 'auto'] };
    this.vad = tunedVad(this.vad, SAMPLE_RATE, settings, this.recognizer.receivedMs);
  }

  private onAppend(audio: unknown): void {
    if (typeof audio !== 'string' || audio.length % 4 !== 0 || !BASE64.test(audio)) {
      return this.error('invalid_request_error', 'invalid_value', 'Invalid value: audio must be base64-encoded PCM16.', 'audio');
    }
    const pcm = Buffer.from(audio, 'base64');
    if (pcm.length % 2 !== 0)
      return this.error('invalid_request_error', 'invalid_value', 'Invalid value: PCM16 audio must have an even number of bytes.', 'audio');
    if (this.faults.reach('streaming')) return;
    const ms = (pcm.length / 2 / SAMPLE_RATE) * 1000;
    this.bufferedMs += ms;
    const words = this.faults.words(this.recognizer.feed(pcm));
    this.heard.push(...words);
    // Without a VAD, all uncommitted audio is the next item; with one, only detected speech is.
    if (!this.vad && pcm.length > 0) this.item ??= { id: this.newItemId(), emitted: 0 };
    for (const event of this.vad?.feed(pcm) ?? []) {
      if (event.type === 'started') {
        this.item = { id: this.newItemId(), emitted: 0 };
        this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(event.audioStartMs), item_id: this.item.id });
      } else if (this.item) {
        this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(event.audioEndMs), item_id: this.item.id });
        this.commit(event.audioEndMs + WORD_TOLERANCE_MS, this.recognizer.receivedMs - event.atMs);
      }
    }
    if (this.options.streamDuringSpeech && this.item) this.streamHeard(this.item);
  }

  private onCommit(): void {
    const refusal = commitTooSmall(this.bufferedMs);
    if (refusal) return this.error('invalid_request_error', ...refusal);
    this.heard.push(...this.faults.words(this.recognizer.flush()));
    this.item ??= { id: this.newItemId(), emitted: 0 };
    this.vad?.reset();
    this.commit(Infinity);
  }

  /**
   * Commits the current item with the words heard up to `untilMs`, then transcribes it. The
   * last `leftMs` of the buffer, audio that came after the VAD's stop, stays in it: a
   * client's commit then finds it, as on the real server (under 100 ms, a refusal).
   */
  private commit(untilMs: number, leftMs = 0): void {
    if (this.faults.reach('final')) return;
    const item = this.item ?? { id: this.newItemId(), emitted: 0 };
    const audioMs = this.bufferedMs - leftMs;
    this.item = undefined;
    this.bufferedMs = leftMs;
    const words = this.heard.filter((w) => w.endMs <= untilMs).map((w) => w.text);
    this.heard = this.heard.filter((w) => w.endMs > untilMs);
    const previous = this.previousItemId;
    this.previousItemId = item.id;
    this.send({ type: 'input_audio_buffer.committed', item_id: item.id, previous_item_id: previous });
    // The API omits the transcript until it is known (conversation.item.done).
    const conversationItem = { id: item.id, type: 'message', role: 'user', content: [{ type: 'input_audio' }] };
    this.send({ type: this.options.beta ? 'conversation.item.created' : 'conversation.item.added', previous_item_id: previous, item: conversationItem });
    const open = this.ctx.openSessions();
    for (let i = item.emitted; i < words.length; i++) this.delta(item.id, words, i, open, i - item.emitted);
    if (this.faults.has('never-finalize')) return;
    this.unfinished++;
    this.emissions.push(performance.now() + this.ctx.latency.finalize(open), () => {
      const transcript = words.join(' ');
      const final = (): void => {
        const usage = transcriptionTokens(audioMs, words.length);
        this.sendCompleted(item.id, transcript, usage);
        if (this.faults.has('duplicate-final')) this.sendCompleted(item.id, transcript, usage);
        if (!this.options.beta)
          this.send({
            type: 'conversation.item.done',
            previous_item_id: previous,
            item: { ...conversationItem, content: [{ type: 'input_audio', transcript }] },
          });
      };
      this.unfinished--;
      const held = this.heldFinal;
      this.heldFinal = undefined;
      if (!held && this.unfinished > 0 && this.faults.has('out-of-order-finals')) {
        this.heldFinal = final;
        return;
      }
      final();
      held?.();
    });
  }

  private sendCompleted(itemId: string, transcript: string, usage: object): void {
    this.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript, usage });
  }

  /** Streams the words heard so far for an item still receiving speech. */
  private streamHeard(item: { id: string; emitted: number }): void {
    const words = this.heard.map((w) => w.text);
    const open = this.ctx.openSessions();
    for (let i = item.emitted; i < words.length; i++) this.delta(item.id, words, i, open, 0);
    item.emitted = words.length;
  }

  /** Emits word `i`; `queued` words decoded before it in the same pass each add their compute time. */
  private delta(itemId: string, words: string[], i: number, open: number, queued: number): void {
    const delta = i === 0 ? words[i]! : ` ${words[i]}`;
    const compute = queued * this.ctx.latency.options.perWordMs * this.ctx.latency.slowdown(open);
    this.emissions.push(performance.now() + this.ctx.latency.delay(open) + compute, () => {
      this.send({ type: 'conversation.item.input_audio_transcription.delta', item_id: itemId, content_index: 0, delta });
      if (this.faults.once('early-final')) this.sendCompleted(itemId, words.slice(0, i + 1).join(' '), transcriptionTokens(0, i + 1));
    });
  }

  private newItemId(): string {
    return `item_${randomBytes(10).toString('hex')}`;
  }

  private describe(): object {
    // Fields not set are left out, as the API does (no nulls).
    const transcription = {
      model: this.model,
      ...(this.language !== null ? { language: this.language } : {}),
      ...(this.prompt ? { prompt: this.prompt } : {}),
    };
    return this.options.beta
      ? {
          id: this.sessionId,
          object: 'realtime.transcription_session',
          input_audio_format: 'pcm16',
          input_audio_transcription: transcription,
          turn_detection: this.turnDetection,
        }
      : {
          type: 'transcription',
          id: this.sessionId,
          object: 'realtime.transcription_session',
          audio: { input: { format: { type: 'audio/pcm', rate: SAMPLE_RATE }, transcription, turn_detection: this.turnDetection } },
        };
  }

  private error(type: string, code: string, message: string, param: string | null = null): void {
    this.send({ type: 'error', event_id: `event_${randomBytes(8).toString('hex')}`, error: { type, code, message, param, event_id: null } });
  }

  private send(event: Record<string, unknown>): void {
    this.faults.deliver(this.frame(event));
  }

  private frame(event: Record<string, unknown>): string {
    return JSON.stringify({ event_id: `event_${randomBytes(8).toString('hex')}`, ...event });
  }
}

/** OpenAI's refusal of a commit of `bufferedMs` of uncommitted audio (its code and message), or undefined when it commits it. */
export function commitTooSmall(bufferedMs: number): [code: string, message: string] | undefined {
  if (bufferedMs >= MIN_COMMIT_MS) return undefined;
  return [
    'input_audio_buffer_commit_empty',
    `Error committing input audio buffer: buffer too small. Expected at least ${MIN_COMMIT_MS}ms of audio, but buffer only has ${bufferedMs.toFixed(2)}ms of audio.`,
  ];
}

function isPcm24k(format: unknown): boolean {
  const f = format as { type?: unknown; rate?: unknown } | null;
  return typeof f === 'object' && f !== null && f.type === 'audio/pcm' && (f.rate === undefined || f.rate === SAMPLE_RATE);
}

/** The model an OpenAI transcription session starts with: the one the connection's `?model=` asked for, else the first OpenAI model served. */
function transcriptionModel(asked: string | null, served: readonly string[]): string {
  if (asked !== null && served.includes(asked)) return asked;
  return served.find((m) => OPENAI_MODELS.includes(m)) ?? served[0] ?? OPENAI_MODELS[0]!;
}

/** OpenAI Realtime transcription, GA or beta (`asksOpenai`; the simulated registry asks the realtime model first). */
export const simulatedOpenai = {
  ...OPENAI,
  inputRate: SAMPLE_RATE,
  onSharedPath: asksOpenai,
  open: (ws, ctx, upgrade) =>
    new OpenAISession(ws, ctx, {
      beta: asksBeta(upgrade),
      streamDuringSpeech: ctx.streamDuringSpeech,
      model: transcriptionModel(upgrade.url.searchParams.get('model'), ctx.servedModels),
    }),
} satisfies SimulatedDialect;
