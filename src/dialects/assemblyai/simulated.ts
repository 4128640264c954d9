import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { SessionFaults } from '../../server/faults/session-faults.js';
import { StreamRecognizer, type HeardWord } from '../../server/models/recognizer.js';
import { SpeakerLabeller } from '../../server/models/speakers.js';
import { StreamingVad } from '../../server/models/vad.js';
import { EmissionQueue } from '../../server/sessions/emission-queue.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { ASSEMBLYAI, MESSAGE_MS } from './spec.js';

/** The rate the simulated server hears (its references are indexed at it); the service itself takes any `sample_rate`. */
const SAMPLE_RATE = 16_000;
/** The service's default silence that ends a turn whatever its model thinks, ms. */
const MAX_TURN_SILENCE_MS = 1280;
/** A word ending this soon after speech stops still belongs to that turn. */
const WORD_TOLERANCE_MS = 100;
/** The longest a simulated word lasts, for its `start`. */
const WORD_MS = 300;
/** Sessions end at 3 hours (`expires_at`). */
const SESSION_S = 3 * 3600;

/** A word as the service sends it (the SDK's `StreamingWord`). */
interface TurnWord {
  text: string;
  start: number;
  end: number;
  confidence: number;
  word_is_final: boolean;
  /** With `speaker_labels=true`, on final words: `A`, `B`, … */
  speaker?: string;
}

/** A turn: its order and the words heard in it. */
interface RunningTurn {
  order: number;
  words: LabelledWord[];
}

/**
 * One connection speaking AssemblyAI Universal-Streaming v3. Its turn detection is
 * silence only: a turn ends after `max_turn_silence` (default 1280 ms) without speech
 * energy above `vad_threshold`; it has no semantic model, so
 * `end_of_turn_confidence_threshold` and `min_turn_silence` are taken and not used.
 * Each word heard in a turn is final at once and sent as a partial `Turn` after the
 * latency model's delay (with `pendingWordsMs`, it is first sent pending, `word_is_final:
 * false` and not yet in `transcript`, at times that far off, and made final by the next
 * `Turn`); the ended turn follows after its finalize delay, then its formatted copy with
 * `format_turns`. With `speaker_labels=true` each final word has its `speaker` (the turn's
 * `speaker_label` is their majority); with `speakerRevision`, `Terminate` first sends a
 * `SpeakerRevision` that gives the words of every earlier turn their reference speaker,
 * free of the label errors (`SpeakerErrors`), listing the turns whose labels change.
 * `ForceEndpoint` ends the turn now (an empty one when none runs), `Terminate` too, then
 * `Termination` and a close 1000. Bad messages get
 * the documented `Error` and close codes: 3006 (message, JSON, query), 3007 (a message of
 * audio shorter than 50 or longer than 1000 ms).
 */
export class AssemblyAISession {
  private readonly recognizer: StreamRecognizer;
  private vad: StreamingVad;
  /** Where in the session's audio the current VAD started hearing (a configuration change starts a new one), ms. */
  private vadOffsetMs = 0;
  private vadThreshold: number;
  private maxTurnSilenceMs: number;
  private formatTurns: boolean;
  /** Words heard and not yet given to a turn (with their speaker, given `speaker_labels=true`). */
  private heard: LabelledWord[] = [];
  private readonly speakers: SpeakerLabeller | undefined;
  /** The running turn: its order and the words it has sent. */
  private turn: RunningTurn | undefined;
  /** Turns ended, kept only for a `SpeakerRevision`. */
  private readonly ended: RunningTurn[] = [];
  private readonly revising: boolean;
  private nextOrder = 0;
  private audioMs = 0;
  private terminated = false;
  private readonly openedAt = performance.now();
  private readonly emissions = new EmissionQueue();
  private readonly faults: SessionFaults;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: SessionContext,
    query: URLSearchParams,
  ) {
    this.recognizer = new StreamRecognizer(ctx.references, SAMPLE_RATE);
    this.vadThreshold = numberOr(query.get('vad_threshold'), 0.5);
    this.maxTurnSilenceMs = numberOr(query.get('max_turn_silence'), MAX_TURN_SILENCE_MS);
    this.formatTurns = query.get('format_turns') === 'true';
    this.speakers = query.get('speaker_labels') === 'true' ? new SpeakerLabeller(ctx.speakers, ctx.latency.options.seed) : undefined;
    this.revising = ctx.speakerRevision && this.speakers !== undefined;
    this.vad = this.newVad();
    this.faults = new SessionFaults(ctx.faults, ws, ctx.socket, {
      errorFrame: (code, message) => JSON.stringify({ type: 'Error', error_code: Number(code) || 3005, error: `${code}: ${message}` }),
      deltaFrame: () => [
        '{"type":"Turn","turn_order":0,"turn_is_formatted":false,"end_of_turn":false,"end_of_turn_confidence":0,"words":[],"transcript":"',
        '"}',
      ],
      noiseFrame: () => '{"type":"SpeechStarted","timestamp":0}',
    });
    ws.on('close', () => this.emissions.clear());
    if (this.faults.reach('open')) return;
    const rate = query.get('sample_rate');
    const encoding = query.get('encoding') ?? 'pcm_s16le';
    if (rate !== String(SAMPLE_RATE) || encoding !== 'pcm_s16le') {
      this.fail(
        3006,
        `Invalid query: the simulated server hears sample_rate=${SAMPLE_RATE} with encoding=pcm_s16le, got sample_rate=${rate} encoding=${encoding}`,
      );
      return;
    }
    this.send({ type: 'Begin', id: randomUUID(), expires_at: Math.floor(Date.now() / 1000) + SESSION_S });
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.faults.gone || this.terminated) return;
    if (isBinary) return this.onAudio(data);
    let message: unknown;
    try {
      message = JSON.parse(data.toString('utf8'));
    } catch {
      return this.fail(3006, `Invalid JSON: ${data.toString('utf8').slice(0, 60)}`);
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return this.fail(3006, `Invalid Message: ${JSON.stringify(message)}`);
    const m = message as Record<string, unknown>;
    switch (m.type) {
      case 'ForceEndpoint':
        return this.endTurn(true);
      case 'UpdateConfiguration':
        return this.configure(m);
      case 'Terminate':
        return this.terminate();
      case 'KeepAlive':
        return;
      default:
        return this.fail(3006, `Invalid Message Type: ${String(m.type)}`);
    }
  }

  private onAudio(pcm: Buffer): void {
    const ms = (pcm.length / 2 / SAMPLE_RATE) * 1000;
    if (pcm.length % 2 !== 0) return this.fail(3006, 'Invalid Message: PCM16 audio must have an even number of bytes');
    if (ms < MESSAGE_MS.min || ms > MESSAGE_MS.max)
      return this.fail(3007, `Input duration violation: ${ms.toFixed(0)} ms. Expected between ${MESSAGE_MS.min} and ${MESSAGE_MS.max} ms`);
    if (this.faults.reach('streaming')) return;
    this.audioMs += ms;
    this.heard.push(...this.labelled(this.recognizer.feed(pcm)));
    for (const event of this.vad.feed(pcm)) {
      if (event.type === 'started') this.turn ??= this.newTurn();
      else if (this.turn) this.endTurn(false, this.vadOffsetMs + event.audioEndMs + WORD_TOLERANCE_MS);
    }
    if (this.heard.length > 0) this.streamHeard((this.turn ??= this.newTurn()));
  }

  /** Sends each word heard in the running turn as a partial `Turn` restating the turn so far. */
  private streamHeard(turn: RunningTurn): void {
    const open = this.ctx.openSessions();
    const pendingMs = this.ctx.pendingWordsMs;
    for (const word of this.heard.splice(0)) {
      turn.words.push(word);
      const words = turnWords(turn.words);
      // The newest word pending, re-timed when the next Turn makes it final.
      if (pendingMs !== undefined) words.push(pendingWord(words.pop()!, pendingMs));
      this.emissions.push(performance.now() + this.ctx.latency.delay(open), () =>
        this.send(turnMessage(turn.order, words, { end: false, formatted: false, confidence: 0.1 })),
      );
    }
  }

  /**
   * Ends the running turn: with the words heard up to `untilMs` (the server's own end),
   * or, forced, with every word still pending (an empty turn when none runs).
   */
  private endTurn(forced: boolean, untilMs = Infinity): void {
    if (forced) this.heard.push(...this.labelled(this.recognizer.flush()));
    const pending = this.heard.filter((w) => w.endMs <= untilMs);
    this.heard = this.heard.filter((w) => w.endMs > untilMs);
    const turn = this.turn ?? (forced || pending.length > 0 ? this.newTurn() : undefined);
    this.turn = undefined;
    this.vad.reset();
    if (!turn) return;
    turn.words.push(...pending);
    if (this.revising) this.ended.push(turn);
    if (this.faults.reach('final') || this.faults.has('never-finalize')) return;
    const words = turnWords(turn.words);
    this.emissions.push(performance.now() + this.ctx.latency.finalize(this.ctx.openSessions()), () => {
      const ended = turnMessage(turn.order, words, { end: true, formatted: false, confidence: forced ? 1 : 0.9 });
      this.send(ended);
      if (this.faults.has('duplicate-final')) this.send(ended);
      if (this.formatTurns) this.send(turnMessage(turn.order, words, { end: true, formatted: true, confidence: forced ? 1 : 0.9 }));
    });
  }

  private configure(m: Record<string, unknown>): void {
    if (typeof m.vad_threshold === 'number') this.vadThreshold = m.vad_threshold;
    if (typeof m.max_turn_silence === 'number') this.maxTurnSilenceMs = m.max_turn_silence;
    if (typeof m.format_turns === 'boolean') this.formatTurns = m.format_turns;
    // A turn in progress keeps its VAD; the new settings apply from the next.
    if (!this.turn) this.vad = this.newVad();
  }

  private terminate(): void {
    this.heard.push(...this.labelled(this.recognizer.flush()));
    this.endTurn(false);
    this.terminated = true;
    this.emissions.push(performance.now(), () => {
      const revisions = this.revisions();
      if (revisions.length > 0) this.send({ type: 'SpeakerRevision', revisions });
      this.send({
        type: 'Termination',
        audio_duration_seconds: Math.round(this.audioMs) / 1000,
        session_duration_seconds: Math.round(performance.now() - this.openedAt) / 1000,
      });
      this.ws.close(1000);
    });
  }

  /** Each ended turn whose labels the reference speakers change, with every word's speaker revised (text and times as sent). */
  private revisions(): object[] {
    return this.ended.flatMap(({ order, words }) => {
      if (words.every((w) => w.label === w.truth)) return [];
      const revised = turnWords(words.map((w) => (w.truth !== undefined ? { ...w, label: w.truth } : w)));
      return [{ turn_order: order, ...majorityLabel(revised), words: revised }];
    });
  }

  /** Heard words after the session's faults, each given its speaker when labelling (once: a word keeps its label), and its reference speaker for a revision. */
  private labelled(words: HeardWord[]): LabelledWord[] {
    const speakers = this.speakers;
    return this.faults.words(words).map((w) => {
      const label = speakers?.label(w);
      const truth = this.revising ? speakers?.truth(w) : undefined;
      return { ...w, ...(label !== undefined ? { label } : {}), ...(truth !== undefined ? { truth } : {}) };
    });
  }

  private newTurn(): RunningTurn {
    return { order: this.nextOrder++, words: [] };
  }

  private newVad(): StreamingVad {
    this.vadOffsetMs = this.audioMs;
    return new StreamingVad(SAMPLE_RATE, { threshold: this.vadThreshold, prefixPaddingMs: 0, silenceDurationMs: this.maxTurnSilenceMs });
  }

  /** The documented error: an `Error` message, then a close with its code. */
  private fail(code: number, error: string): void {
    this.emissions.clear();
    this.send({ type: 'Error', error_code: code, error });
    this.terminated = true;
    this.ws.close(code, error.slice(0, 123));
  }

  private send(message: object): void {
    this.faults.deliver(JSON.stringify(message));
  }
}

/** A heard word with its speaker number, and the number of its reference speaker where a revision may need it. */
type LabelledWord = HeardWord & { label?: number; truth?: number };

/** Speaker numbers as AssemblyAI writes them: A, B, …, Z, then AA, AB, … */
const letters = (n: number): string => (n < 26 ? '' : letters(Math.floor(n / 26) - 1)) + String.fromCharCode(65 + (n % 26));

/**
 * A turn's words as sent, all final: each starts where the reference says (a word of audio
 * the server does not know, `WORD_MS` before its end, after the word before it).
 */
function turnWords(words: readonly LabelledWord[]): TurnWord[] {
  let previousEnd = 0;
  return words.map((word) => {
    const end = Math.round(word.endMs);
    const start = word.startMs !== undefined ? Math.round(word.startMs) : Math.max(previousEnd, end - WORD_MS);
    previousEnd = end;
    return { text: word.text, start, end, confidence: 0.9, word_is_final: true, ...(word.label !== undefined ? { speaker: letters(word.label) } : {}) };
  });
}

/** A word still being decided: not final, its times `shiftMs` off, no speaker yet (the service labels final words). */
function pendingWord({ speaker: _final, ...word }: TurnWord, shiftMs: number): TurnWord {
  return { ...word, start: Math.max(0, word.start + shiftMs), end: Math.max(0, word.end + shiftMs), word_is_final: false };
}

function turnMessage(order: number, words: TurnWord[], turn: { end: boolean; formatted: boolean; confidence: number }): object {
  const text = words
    .filter((w) => w.word_is_final)
    .map((w) => w.text)
    .join(' ');
  return {
    type: 'Turn',
    turn_order: order,
    turn_is_formatted: turn.formatted,
    end_of_turn: turn.end,
    transcript: turn.formatted ? formatted(text) : text,
    end_of_turn_confidence: turn.confidence,
    ...majorityLabel(words),
    words,
  };
}

/** Formatted text: its first letter a capital, and one full stop unless it ends with a mark of its own. */
function formatted(text: string): string {
  if (!text) return text;
  const capital = `${text[0]!.toUpperCase()}${text.slice(1)}`;
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** A turn's `speaker_label`: that of most of its labelled words. */
function majorityLabel(words: readonly TurnWord[]): { speaker_label?: string } {
  const labels = words.flatMap((w) => w.speaker ?? []);
  return labels.length > 0 ? { speaker_label: mostCommon(labels) } : {};
}

function mostCommon(labels: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts].reduce((best, next) => (next[1] > best[1] ? next : best))[0];
}

function numberOr(value: string | null, fallback: number): number {
  const n = value === null ? NaN : Number(value);
  return Number.isFinite(n) ? n : fallback;
}

export const simulatedAssemblyai = {
  ...ASSEMBLYAI,
  inputRate: SAMPLE_RATE,
  open: (ws, ctx, { url }) => new AssemblyAISession(ws, ctx, url.searchParams),
} satisfies SimulatedDialect;
