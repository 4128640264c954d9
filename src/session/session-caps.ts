import { createHash, type Hash } from 'node:crypto';
import type { Failure, ReceivedFrame, ReceivedOverflow } from '../timeline/types.js';
import { TEXT_LIMITS } from '../dialects/text-limits.js';

/**
 * How much of what a server sends one session keeps, whatever the server does: an
 * endless answer bounds memory, the session log and the report by size, not only by
 * `--final-timeout-ms`. (Text and audio payloads have their own limits: TEXT_LIMITS in
 * bounds.ts, `--keep-audio-mb` in received-audio.ts.)
 */
export interface SessionCaps {
  /** Received events kept in the timeline (`--max-session-events`); later ones are counted, not kept. */
  maxEvents: number;
  /** Bytes received (`--max-session-mb`, on the wire); crossing it ends the session at once. */
  maxBytes: number;
}

/**
 * A well-behaved session stays far below both: 100,000 events is over half an hour of
 * 20 ms audio chunks, about 11 MB of report; 1 GiB is an hour of 48 kHz stereo PCM16
 * sent as base64.
 */
export const DEFAULT_SESSION_CAPS: SessionCaps = { maxEvents: 100_000, maxBytes: 1024 * 1024 * 1024 };

/**
 * The received side of a session's timeline under its caps. Events up to `maxEvents`
 * are kept; later ones still reach the dialect's policy (so the session still sees its
 * answer end) but are only counted into `timeline.overflow`: events, audio, text
 * length, a running SHA-256 of the text, first and last arrival.
 *
 * Metrics need every event (a final after the cap, each chunk's arrival for playback),
 * so figures from a partial timeline would be wrong: a session whose events were not
 * all kept never completes; `unkept()` makes it fail as `answer_too_large`, and only
 * completed sessions give figures. So does a session whose text was cut to its limits
 * (TEXT_LIMITS): a cut transcript is not what the server said, and scored it gives a
 * word error rate of the cut, not of the server.
 */
export class CappedReceived {
  private overflow: ReceivedOverflow | undefined;
  private hash: Hash | undefined;
  private keptChars = 0;
  /** The first kept event whose text was cut to the limits. */
  private cut: ReceivedFrame | undefined;

  constructor(
    private readonly received: ReceivedFrame[],
    private readonly caps: SessionCaps = DEFAULT_SESSION_CAPS,
  ) {}

  /** Keeps the frame, or past the cap counts it; `text` is its text as the server sent it (the frame's may have been cut). */
  record(frame: ReceivedFrame, text = frame.text): void {
    if (!this.overflow && this.received.length < this.caps.maxEvents) {
      this.keptChars += keptSize(frame);
      if (this.keptChars <= KEPT_CHARS) {
        this.received.push(frame);
        if (frame.truncated) this.cut ??= frame;
        return;
      }
    }
    const o = (this.overflow ??= { events: 0, audioBytes: 0, audioMs: 0, textChars: 0, firstMs: frame.t, lastMs: frame.t });
    o.events++;
    o.audioBytes += frame.audioBytes ?? 0;
    o.audioMs += frame.audioMs ?? 0;
    o.lastMs = frame.t;
    if (text) {
      o.textChars += text.length;
      (this.hash ??= createHash('sha256')).update(text);
    }
  }

  /** The failure once `totalBytes` received crosses the byte cap; undefined below it. */
  overBytes(totalBytes: number): Omit<Failure, 'stage'> | undefined {
    if (totalBytes <= this.caps.maxBytes) return undefined;
    return {
      class: 'answer_too_large',
      message: `the server sent more than ${mib(this.caps.maxBytes)} MB in one session (--max-session-mb); the session was ended`,
    };
  }

  /** The failure of a session whose events, or whose text, were not all kept; undefined when all were. */
  unkept(): Omit<Failure, 'stage'> | undefined {
    const o = this.overflow;
    if (!o) return this.cut && cutTextFailure(this.cut, this.cut.truncated!.chars);
    return {
      class: 'answer_too_large',
      message:
        this.received.length < this.caps.maxEvents
          ? `the server's events passed the ${KEPT_CHARS / MiB} MiB one session keeps after ${this.received.length} events (their strings padded to the limits): the ${o.events} past it were counted, not kept, so the session gives no figures`
          : `the server sent ${this.caps.maxEvents + o.events} events, more than the ${this.caps.maxEvents} one session keeps (--max-session-events): the ${o.events} past it were counted, not kept, so the session gives no figures`,
    };
  }

  /** What was counted past the cap, its hash final; undefined when every event was kept. */
  result(): ReceivedOverflow | undefined {
    if (!this.overflow) return undefined;
    return { ...this.overflow, ...(this.hash ? { textSha256: this.hash.copy().digest('hex') } : {}) };
  }
}

const MiB = 1024 * 1024;

/** The failure of a session that kept `frame` with its text of `chars` characters cut to the limits (TEXT_LIMITS). */
export function cutTextFailure(frame: ReceivedFrame, chars: number): Omit<Failure, 'stage'> {
  return {
    class: 'answer_too_large',
    message: `the server's ${frame.type} (input ${frame.input + 1}) carried ${count(chars)} characters of text, cut to the ${count(TEXT_LIMITS.eventChars)} an event keeps (${count(TEXT_LIMITS.sessionChars)} a session): a cut text is not a transcript, so the session gives no figures`,
  };
}

/**
 * What the kept events of one session may weigh, about the characters of their JSON,
 * so that one session's report stays under 20 MB: with every string cut to its own
 * limit (bounds.ts), a server could still pad each kept event's type, code, message, ids
 * and usage keys to kilobytes, and the count alone would not bound the report. A
 * well-behaved session's event weighs under 200.
 */
const KEPT_CHARS = 16 * MiB;

/** About the characters a frame takes in report.json: its fixed fields, then its strings. */
function keptSize(frame: ReceivedFrame): number {
  let size = 160;
  for (const value of [frame.type, frame.code, frame.message, frame.itemId, frame.responseId, frame.text]) size += value?.length ?? 0;
  if (frame.usage) for (const key in frame.usage.values) size += key.length + 24;
  return size;
}

const count = (n: number): string => n.toLocaleString('en-US');

function mib(bytes: number): string {
  return String(Math.round((bytes / 1024 / 1024) * 100) / 100);
}
