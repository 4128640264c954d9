import { createHash } from 'node:crypto';
import type { DecodedEvent } from '../dialects/dialect.js';
import { TEXT_LIMITS } from '../dialects/text-limits.js';
import type { Failure } from '../timeline/types.js';

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
