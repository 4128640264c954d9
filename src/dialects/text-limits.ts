import { createHash, type Hash } from 'node:crypto';
import type { DecodedEvent } from './dialect.js';

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
