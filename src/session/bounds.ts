import { createHash } from 'node:crypto';
import type { DecodedEvent } from '../dialects/dialect.js';

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
  /** Characters kept of a wire type, code, message or id. */
  fieldChars: 1_024,
};

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

  /**
   * The event with its strings cut to the limits. A cut text keeps its full length
   * and SHA-256, so it is still known what the server sent.
   */
  bound(event: DecodedEvent): DecodedEvent {
    let bounded = event;
    for (const key of ['type', 'code', 'message', 'itemId', 'responseId'] as const) {
      const value = bounded[key];
      if (value !== undefined && value.length > TEXT_LIMITS.fieldChars) bounded = { ...bounded, [key]: value.slice(0, TEXT_LIMITS.fieldChars) };
    }
    const text = bounded.text;
    if (text === undefined) return bounded;
    const keep = Math.min(text.length, TEXT_LIMITS.eventChars, this.left);
    this.left -= keep;
    if (keep === text.length) return bounded;
    return { ...bounded, text: text.slice(0, keep), truncated: { chars: text.length, sha256: createHash('sha256').update(text).digest('hex') } };
  }
}
