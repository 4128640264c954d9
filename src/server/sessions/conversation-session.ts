import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { EmissionQueue } from './emission-queue.js';
import { StreamRecognizer, type HeardWord } from '../models/recognizer.js';
import { replyAudio } from '../models/reply-audio.js';
import type { SessionContext } from './session-context.js';
import { SessionFaults } from '../faults/session-faults.js';
import { transcriptionTokens } from '../models/transcription-usage.js';
import { SEMANTIC_SILENCE_MS, tunedVad, type StreamingVad } from '../models/vad.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** A word ending this soon after speech stops still belongs to that turn. */
const WORD_TOLERANCE_MS = 100;
/** The agent's audio is PCM16 at 24 kHz, sent in chunks of this much. */
export const OUTPUT_RATE = 24_000;
const OUTPUT_CHUNK_MS = 200;

type TurnDetection = null | { type?: unknown; threshold?: unknown; prefix_padding_ms?: unknown; silence_duration_ms?: unknown; eagerness?: unknown };

/**
 * The uncommitted input a client's commit finds: its audio, whether the server heard speech in it
 * (its VAD's start; without a VAD, any audio), and whether any of it was appended since the last commit.
 */
export interface PendingInput {
  bufferedMs: number;
  speech: boolean;
  appendedSinceCommit: boolean;
}

/** A response being generated: its ids, whether it was cancelled or cut, and its output item once announced (`response.output_item.added`). */
interface Response {
  id: string;
  itemId: string;
  stopped: boolean;
  item?: { transcript: string; previous: string | null };
}

/**
 * One speech-to-speech conversation on the simulated server, whatever the dialect: it
 * hears the user's audio (the recognizer), ends turns by its VAD or the client's
 * commit, and answers each turn with text and speech-like audio, paced by the latency
 * model (capacity knee included); a response is cancelled by `response.cancel` or, with
 * a VAD, by the user speaking over it (barge-in). Dialects subclass it for their wire:
 * the events they add, and what decorates every event they send.
 */
export abstract class ConversationSession {
  protected readonly faults: SessionFaults;
  private readonly recognizer: StreamRecognizer;
  private vad: StreamingVad | undefined;
  private heard: HeardWord[] = [];
  /** The item the uncommitted audio belongs to, once there is some. */
  private item: string | undefined;
  /** Committed items no response has answered yet, with their words. */
  private unanswered: Array<{ itemId: string; words: string[] }> = [];
  private bufferedMs = 0;
  /** Whether audio was appended since the last commit (what came after a VAD's stop in the chunk holding it does not count). */
  private appendedSinceCommit = false;
  private response: Response | undefined;
  private responses = 0;
  protected readonly emissions = new EmissionQueue();
  /** The last item in the conversation, which the next one follows (`previous_item_id`). */
  private lastItem: string | null = null;

  constructor(
    protected readonly ws: WebSocket,
    protected readonly ctx: SessionContext,
    private readonly inputRate: number,
    /** One id for the whole session, whoever sent its `session.created`. */
    protected readonly sessionId = `sess_${randomBytes(12).toString('hex')}`,
  ) {
    this.recognizer = new StreamRecognizer(ctx.references, inputRate);
    this.faults = new SessionFaults(ctx.faults, ws, ctx.socket, {
      errorFrame: (code, message) => this.frame({ type: 'error', error: { type: 'server_error', code, message, param: null, event_id: null } }),
      deltaFrame: () => [
        this.frame({ type: 'response.output_audio_transcript.delta', response_id: this.response?.id ?? 'resp_none', delta: '' }).slice(0, -2),
        '"}',
      ],
      noiseFrame: () => this.frame({ type: 'rate_limits.updated', rate_limits: [] }),
    });
    ws.on('close', () => this.emissions.clear());
  }

  /** Sends the opening event (unless the connection had it already) and starts listening; subclasses call it once constructed. */
  protected open(created: Record<string, unknown> | undefined): void {
    if (this.faults.reach('open')) return;
    if (created) this.send(created);
    this.ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  /** The dialect's own client events; false when the type is not one of them. */
  protected abstract onOwnEvent(event: Record<string, unknown>): boolean;
  /** What every event sent carries besides its fields (ids, sequence numbers). */
  protected abstract decorate(event: Record<string, unknown>): Record<string, unknown>;
  /** The session as `session.created` / `session.updated` describe it. */
  protected abstract describe(): Record<string, unknown>;
  /** Extra fields of an audio delta: `cumulativeMs` is the response's audio so far. */
  protected audioMetadata(_cumulativeMs: number): Record<string, unknown> {
    return {};
  }
  /** Fields of `response.created` beyond the response's id and status; `plannedFirstMs` is when its first audio and text are due, ms after the request. */
  protected responseMetadata(_plannedFirstMs: number): Record<string, unknown> {
    return {};
  }
  /** Events sent after a response's audio and transcript are done, before `response.done`. */
  protected responseEnding(_response: Response): Array<Record<string, unknown>> {
    return [];
  }
  /** `status_details.reason` of a response the user spoke over. */
  protected abstract readonly bargeInReason: string;
  /** Whether a client's commit ends the speech its VAD hears with a `speech_stopped` first: vLLM-Omni's does, at `audio_end_ms` 0 (`resolve_commit`); OpenAI's sends none. */
  protected readonly stopsSpeechOnCommit: boolean = false;
  /** Why the server refuses a client's commit of `input` (its error code and message), or undefined when it commits it. */
  protected abstract commitRefusal(input: PendingInput): [code: string, message: string] | undefined;

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
    switch (event.type) {
      case 'session.update':
        return this.onUpdate(event.session);
      case 'input_audio_buffer.append':
        return this.onAppend(event.audio);
      case 'input_audio_buffer.commit':
        return this.onCommit(event.response_create === true);
      case 'input_audio_buffer.clear':
        this.heard = [];
        this.item = undefined;
        this.bufferedMs = 0;
        this.appendedSinceCommit = false;
        this.vad?.reset();
        return this.send({ type: 'input_audio_buffer.cleared' });
      case 'response.create':
        return this.onResponseCreate();
      case 'response.cancel':
        return this.onCancel(event.response_id);
      default:
        if (!this.onOwnEvent(event))
          this.error('invalid_request_error', 'invalid_value', `Invalid value: '${String(event.type)}' is not a client event this server knows.`, 'type');
    }
  }

  /** Turn detection from either session shape: OpenAI's `audio.input.turn_detection`, or vLLM-Omni's and the beta's flat `turn_detection`. */
  private onUpdate(session: unknown): void {
    const s = (typeof session === 'object' && session !== null ? session : {}) as Record<string, unknown>;
    const input = ((s.audio as Record<string, unknown> | undefined)?.input ?? {}) as Record<string, unknown>;
    const td = (input.turn_detection !== undefined ? input.turn_detection : s.turn_detection) as TurnDetection | undefined;
    if (td !== undefined) this.setTurnDetection(td);
    this.send({ type: 'session.updated', session: this.describe() });
  }

  private setTurnDetection(td: TurnDetection): void {
    if (td === null || (td.type !== 'server_vad' && td.type !== 'semantic_vad')) {
      this.vad = undefined;
      return;
    }
    const num = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);
    const eagerness = typeof td.eagerness === 'string' && td.eagerness in SEMANTIC_SILENCE_MS ? (td.eagerness as keyof typeof SEMANTIC_SILENCE_MS) : 'auto';
    const silenceDurationMs = td.type === 'server_vad' ? num(td.silence_duration_ms, 500) : SEMANTIC_SILENCE_MS[eagerness];
    const settings = { threshold: num(td.threshold, 0.5), prefixPaddingMs: num(td.prefix_padding_ms, 300), silenceDurationMs };
    this.vad = tunedVad(this.vad, this.inputRate, settings, this.recognizer.receivedMs);
  }

  private onAppend(audio: unknown): void {
    if (typeof audio !== 'string' || audio.length % 4 !== 0 || !BASE64.test(audio)) {
      return this.error('invalid_request_error', 'invalid_value', 'Invalid value: audio must be base64-encoded PCM16.', 'audio');
    }
    const pcm = Buffer.from(audio, 'base64');
    if (this.faults.reach('streaming')) return;
    this.bufferedMs += (pcm.length / 2 / this.inputRate) * 1000;
    this.appendedSinceCommit ||= pcm.length > 0;
    this.heard.push(...this.faults.words(this.recognizer.feed(pcm)));
    if (!this.vad && pcm.length > 0) this.item ??= newId('item');
    for (const event of this.vad?.feed(pcm) ?? []) {
      if (event.type === 'started') {
        this.item = newId('item');
        this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(event.audioStartMs), item_id: this.item });
        if (this.response) this.stop(this.bargeInReason);
      } else if (this.item) {
        this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(event.audioEndMs), item_id: this.item });
        if (this.commit(event.audioEndMs + WORD_TOLERANCE_MS, this.recognizer.receivedMs - event.atMs)) this.answer();
      }
    }
  }

  /**
   * A client's commit. One of audio in which the server heard no speech (the silence after its
   * VAD's stop) is an item no response answers, even asked (`response_create`): vLLM-Omni commits
   * it with its response request turned off, and OpenAI's commit never answers.
   */
  private onCommit(respond: boolean): void {
    const speech = this.item !== undefined;
    const refusal = this.commitRefusal({ bufferedMs: this.bufferedMs, speech, appendedSinceCommit: this.appendedSinceCommit });
    if (refusal) return this.error('invalid_request_error', ...refusal);
    if (this.vad && speech && this.stopsSpeechOnCommit) this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: 0, item_id: this.item });
    this.heard.push(...this.faults.words(this.recognizer.flush()));
    this.item ??= newId('item');
    this.vad?.reset();
    if (this.commit(Infinity) && respond && speech) this.answer();
  }

  private onResponseCreate(): void {
    if (this.response)
      return this.error('invalid_request_error', 'conversation_already_has_active_response', 'Conversation already has an active response in progress.');
    this.answer();
  }

  private onCancel(responseId: unknown): void {
    if (!this.response || (typeof responseId === 'string' && responseId !== this.response.id)) {
      return this.error('invalid_request_error', 'response_cancel_not_active', 'Cancellation failed: no active response found.');
    }
    this.stop('client_cancelled');
  }

  /**
   * Commits the current item with the words heard up to `untilMs`, keeping the last `leftMs`
   * of the buffer (audio after the VAD's stop) for the next; false when a fault ended the connection.
   */
  private commit(untilMs: number, leftMs = 0): boolean {
    if (this.faults.reach('final')) return false;
    const itemId = this.item ?? newId('item');
    const audioMs = this.bufferedMs - leftMs;
    this.item = undefined;
    this.bufferedMs = leftMs;
    this.appendedSinceCommit = false;
    const words = this.heard.filter((w) => w.endMs <= untilMs).map((w) => w.text);
    this.heard = this.heard.filter((w) => w.endMs > untilMs);
    const previous = this.follow(itemId);
    this.send({ type: 'input_audio_buffer.committed', item_id: itemId, previous_item_id: previous });
    // The transcript is left out until it is known, as the API does.
    const item = { id: itemId, object: 'realtime.item', type: 'message', role: 'user', status: 'completed' };
    this.send({ type: 'conversation.item.added', previous_item_id: previous, item: { ...item, content: [{ type: 'input_audio' }] } });
    this.unanswered.push({ itemId, words });
    const open = this.ctx.openSessions();
    this.emissions.push(performance.now() + this.ctx.latency.finalize(open), () => {
      const transcript = words.join(' ');
      this.send({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: itemId,
        content_index: 0,
        transcript,
        usage: transcriptionTokens(audioMs, words.length),
      });
      this.send({ type: 'conversation.item.done', previous_item_id: previous, item: { ...item, content: [{ type: 'input_audio', transcript }] } });
    });
    return true;
  }

  /** Answers the committed turns not yet answered (or, asked with none, says it is listening). */
  private answer(): void {
    if (this.faults.has('never-respond')) return;
    const turns = this.unanswered.splice(0);
    const heard = turns.flatMap((t) => t.words);
    const text = heard.length > 0 ? `You said ${heard.join(' ')}.` : 'I am listening.';
    const response: Response = { id: newId('resp'), itemId: newId('item'), stopped: false };
    this.response = response;
    const index = this.responses++;
    const open = this.ctx.openSessions();
    const { pcm, words } = replyAudio(text, OUTPUT_RATE);
    const chunkBytes = ((OUTPUT_RATE * OUTPUT_CHUNK_MS) / 1000) * 2;
    const chunks = Math.ceil(pcm.length / chunkBytes);
    const cutAt = index === 0 && this.faults.has('cut-mid-response') ? Math.floor(chunks / 2) : -1;
    const requestedAt = performance.now();
    let at = requestedAt + this.ctx.latency.finalize(open);
    const push = (action: () => void): void => this.emissions.push(at, () => (response.stopped ? undefined : action()));
    const createdAt = at;
    at += this.ctx.latency.delay(open);
    const plannedFirstMs = at - requestedAt;
    this.emissions.push(createdAt, () => {
      if (response.stopped) return;
      this.send({
        type: 'response.created',
        response: { id: response.id, object: 'realtime.response', status: 'in_progress', output: [], ...this.responseMetadata(plannedFirstMs) },
      });
      this.addOutputItem(response);
    });
    let spoken = 0;
    for (let k = 0; k < chunks; k++) {
      const startMs = k * OUTPUT_CHUNK_MS;
      const endMs = Math.min((k + 1) * OUTPUT_CHUNK_MS, (pcm.length / 2 / OUTPUT_RATE) * 1000);
      const audio = pcm.subarray(k * chunkBytes, (k + 1) * chunkBytes).toString('base64');
      const said = words.filter((w) => (w.endMs > startMs && w.endMs <= endMs) || (k === chunks - 1 && w.endMs > endMs));
      const delta = said.map((w, i) => (spoken + i === 0 ? w.text : ` ${w.text}`)).join('');
      spoken += said.length;
      const ids = { response_id: response.id, item_id: response.itemId, output_index: 0, content_index: 0 };
      push(() => {
        if (k === cutAt) {
          response.stopped = true;
          return this.faults.close(1011, 'injected fault');
        }
        this.send({ type: 'response.output_audio.delta', ...ids, delta: audio, ...this.audioMetadata(endMs) });
        if (delta) this.send({ type: 'response.output_audio_transcript.delta', ...ids, delta });
        response.item!.transcript += delta;
      });
      at += this.ctx.latency.generation(endMs - startMs, open);
    }
    push(() => {
      const ids = { response_id: response.id, item_id: response.itemId, output_index: 0, content_index: 0 };
      this.send({ type: 'response.output_audio.done', ...ids });
      this.send({ type: 'response.output_audio_transcript.done', ...ids, transcript: text });
      for (const event of this.responseEnding(response)) this.send(event);
      this.finish(response, 'completed');
    });
  }

  /** Announces the response's assistant message and its audio part, as the API does before the first delta. */
  private addOutputItem(response: Response): void {
    const previous = this.follow(response.itemId);
    response.item = { transcript: '', previous };
    const item = { id: response.itemId, object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    this.send({ type: 'response.output_item.added', response_id: response.id, output_index: 0, item });
    this.send({ type: 'conversation.item.added', previous_item_id: previous, item });
    this.send({
      type: 'response.content_part.added',
      response_id: response.id,
      item_id: response.itemId,
      output_index: 0,
      content_index: 0,
      part: { type: 'audio', transcript: '' },
    });
  }

  /** Closes the response's output item, whole or cut short, and returns it as `response.done` lists it. */
  private doneOutputItem(response: Response, status: 'completed' | 'incomplete'): Record<string, unknown> {
    const { transcript, previous } = response.item!;
    const item = { id: response.itemId, object: 'realtime.item', type: 'message', role: 'assistant', status, content: [{ type: 'output_audio', transcript }] };
    this.send({
      type: 'response.content_part.done',
      response_id: response.id,
      item_id: response.itemId,
      output_index: 0,
      content_index: 0,
      part: { type: 'audio', transcript },
    });
    this.send({ type: 'response.output_item.done', response_id: response.id, output_index: 0, item });
    this.send({ type: 'conversation.item.done', previous_item_id: previous, item });
    return item;
  }

  /** Makes `itemId` the conversation's last item; returns the one it follows. */
  private follow(itemId: string): string | null {
    const previous = this.lastItem;
    this.lastItem = itemId;
    return previous;
  }

  /** Stops the response in progress: cancelled by the client or by the user speaking over it. */
  private stop(reason: string): void {
    const response = this.response!;
    response.stopped = true;
    this.finish(response, 'cancelled', reason);
  }

  /** Ends a response with `response.done`; `status_details` only says why one was cancelled, as the API leaves it out otherwise. */
  private finish(response: Response, status: 'completed' | 'cancelled', reason?: string): void {
    if (this.response === response) this.response = undefined;
    const output = response.item ? [this.doneOutputItem(response, status === 'completed' ? 'completed' : 'incomplete')] : [];
    this.send({
      type: 'response.done',
      response: { id: response.id, object: 'realtime.response', status, ...(reason ? { status_details: { type: status, reason } } : {}), output },
    });
  }

  protected error(type: string, code: string, message: string, param: string | null = null): void {
    this.send({ type: 'error', error: { type, code, message, param, event_id: null } });
  }

  protected send(event: Record<string, unknown>): void {
    this.faults.deliver(this.frame(event));
  }

  private frame(event: Record<string, unknown>): string {
    return JSON.stringify(this.decorate({ event_id: `event_${randomBytes(8).toString('hex')}`, ...event }));
  }
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}
