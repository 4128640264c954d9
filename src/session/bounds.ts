import { createHash, type Hash } from 'node:crypto';
import type { DecodedEvent } from '../dialects/dialect.js';
import type { Failure } from '../timeline/types.js';

/**
 * How much server text a session keeps, whatever a server sends: memory, the session
 * log and the report stay bounded. Far more than any real transcript needs for WER (an
 * hour of speech is about 60,000 characters).
 */
export const TEXT_LIMITS = {
  /** Characters of text kept per event. */
  eventChars: 65_536,
  /** Characters of text kept per session, all events together. */
  sessionChars: 1_048_576,
  /** Characters of text a session takes, kept or not: past it the session ends as answer_too_large (no transcript is this long; a text bomb would be read to its end). */
  sessionReceivedChars: 16 * 1_048_576,
  /** Characters kept of a wire type, code, message or id. */
  fieldChars: 1_024,
  /** Labelled words kept per event (a word's text and speaker are cut as fields are). */
  eventWords: 16_384,
};

/**
 * Reference speaker turns an input carries into the timeline (an hour of conversation
 * has about 1,000); a sample with more is left unscored rather than scored on a part.
 */
export const TURN_LIMIT = 20_000;

/** A sample's reference turns placed `offsetMs` into the stream, or none past TURN_LIMIT. */
export function placedTurns<T extends { speaker: string; startMs: number; endMs: number }>(
  turns: readonly T[] | undefined,
  offsetMs: number,
): { turns?: Array<{ speaker: string; startMs: number; endMs: number }> } {
  if (!turns || turns.length > TURN_LIMIT) return {};
  return { turns: turns.map((t) => ({ speaker: t.speaker, startMs: offsetMs + t.startMs, endMs: offsetMs + t.endMs })) };
}

/**
 * The largest WebSocket message `voxbench proxy` reads (its parser holds a message until
 * it is whole): a larger one is still forwarded, but ends the metering of its connection.
 * Speech frames are kilobytes; a whole utterance of 24 kHz PCM16 in one message, minutes.
 */
export const FRAME_LIMITS = {
  messageBytes: 16 * 1024 * 1024,
};

/** A session's budget of text, spent as events arrive. */
export class TextBudget {
  private left = TEXT_LIMITS.sessionChars;
  private received = 0;

  /** The failure of a session sent more text than any answer holds (TEXT_LIMITS.sessionReceivedChars); undefined while under it. */
  overReceived(): Omit<Failure, 'stage'> | undefined {
    if (this.received <= TEXT_LIMITS.sessionReceivedChars) return undefined;
    return {
      class: 'answer_too_large',
      message: `the server sent ${this.received} characters of text in one session, over the limit of ${TEXT_LIMITS.sessionReceivedChars} (an hour of speech is about 60,000)`,
    };
  }

  /**
   * The event with its strings cut to the limits. A cut text keeps its full length
   * and SHA-256, so it is still known what the server sent (an event a decoder already
   * cut, a JoinedText's, keeps its own).
   */
  bound(event: DecodedEvent): DecodedEvent {
    let bounded = event;
    for (const key of ['type', 'code', 'message', 'itemId', 'responseId'] as const) {
      const value = bounded[key];
      if (value !== undefined && value.length > TEXT_LIMITS.fieldChars) bounded = { ...bounded, [key]: value.slice(0, TEXT_LIMITS.fieldChars) };
    }
    if (bounded.words) bounded = { ...bounded, words: boundedWords(bounded.words) };
    const text = bounded.text;
    if (text === undefined) return bounded;
    this.received += text.length;
    const keep = Math.min(text.length, TEXT_LIMITS.eventChars, this.left);
    this.left -= keep;
    if (keep === text.length) return bounded;
    return {
      ...bounded,
      text: text.slice(0, keep),
      truncated: bounded.truncated ?? { chars: text.length, sha256: createHash('sha256').update(text).digest('hex') },
    };
  }
}

const cut = (value: string): string => (value.length > TEXT_LIMITS.fieldChars ? value.slice(0, TEXT_LIMITS.fieldChars) : value);

function boundedWords(words: NonNullable<DecodedEvent['words']>): NonNullable<DecodedEvent['words']> {
  return words.slice(0, TEXT_LIMITS.eventWords).map((w) => ({ ...w, text: cut(w.text), ...(w.speaker !== undefined ? { speaker: cut(w.speaker) } : {}) }));
}

/**
 * Text joined from a stream's pieces (its deltas), kept up to what one event carries
 * (TEXT_LIMITS.eventChars); past it only its length and a running SHA-256 grow, so an
 * endless stream never builds an endless string.
 */
export class JoinedText {
  private kept = '';
  private chars = 0;
  private hash: Hash | undefined;

  add(piece: string): void {
    this.chars += piece.length;
    const room = TEXT_LIMITS.eventChars - this.kept.length;
    if (!this.hash && piece.length <= room) {
      this.kept += piece;
      return;
    }
    (this.hash ??= createHash('sha256').update(this.kept)).update(piece);
    if (room > 0) this.kept += piece.slice(0, room);
  }

  /** The text, trimmed; when it was cut, with the whole text's length and SHA-256 (as joined, untrimmed). */
  result(): Pick<DecodedEvent, 'text' | 'truncated'> {
    if (!this.hash) return { text: this.kept.trim() };
    return { text: this.kept.trimStart(), truncated: { chars: this.chars, sha256: this.hash.copy().digest('hex') } };
  }
}
