import type { DecodedEvent } from '../dialects/dialect.js';

/**
 * Where each audio frame sent ends in the stream, in send order, so that an
 * acknowledgement that counts frames (Speechmatics' `AudioAdded.seq_no`) is placed as
 * one naming a position: at the end of the frame it counts to. The benchmark's runner
 * and the proxy both place them, so `audio_acked_ms` and the unpaced ack window read one field.
 */
export class AudioFrameEnds {
  private readonly ends: number[] = [];

  sent(endMs: number): void {
    this.ends.push(endMs);
  }

  /** The event with `audioEndMs` from its `audioFrames`, where it counts frames and names no position. */
  place(event: DecodedEvent): DecodedEvent {
    if (event.audioFrames === undefined || event.audioEndMs !== undefined) return event;
    const end = this.ends[Math.min(event.audioFrames, this.ends.length) - 1];
    return end === undefined ? event : { ...event, audioEndMs: end };
  }
}
