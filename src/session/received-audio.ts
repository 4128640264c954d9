import { Base64Audio } from '../audio/base64-audio.js';
import type { DecodedEvent } from '../dialects/dialect.js';

/**
 * One input's received audio: payloads in arrival order, as bytes (base64 text decoded as
 * it was kept), or as base64 bytes where the dialect found them so, decoded after the run.
 */
export interface InputAudio {
  input: number;
  payloads: Array<Buffer | Base64Audio>;
}

/** A session's received audio, kept beside its timeline for the after-run analysis. */
export interface ReceivedAudio {
  inputs: InputAudio[];
  /** Payload bytes (base64 counted as text) kept, and whether the session's limit left some out. */
  bytes: number;
  truncated: boolean;
}

/**
 * Takes each audio payload off the frame the runner records, so timelines stay small,
 * and keeps it up to `limitBytes` per session (base64 counted as text): 0 keeps none,
 * when no after-run analysis needs it. Base64 is decoded as it is kept: a kept string
 * lives on the JS heap, where every garbage collection until the run ends copies or
 * marks it (most of the receive path's CPU time at scale, bench/receive-event.ts),
 * while its bytes live outside it, a quarter smaller, and need no decoding after the run.
 * Base64 a dialect read off the frame's bytes (`Base64Audio`) is kept as those bytes,
 * copied off the frame, and decoded only after the run: keeping it costs a copy. What is
 * copied or decoded goes into slabs of SLAB_BYTES, one allocation for several payloads
 * (a buffer of its own for each cost more than decoding it).
 */
export class AudioKeeper {
  private readonly inputs = new Map<number, InputAudio>();
  private bytes = 0;
  private truncated = false;
  private slab = Buffer.alloc(0);
  private used = 0;

  constructor(private readonly limitBytes: number) {}

  /** The event as recorded: without its payload. */
  take(event: DecodedEvent, input: number): Omit<DecodedEvent, 'payload'> {
    if (event.payload === undefined) return event;
    const { payload, ...recorded } = event;
    if (this.limitBytes > 0) {
      if (this.bytes + payload.length > this.limitBytes) this.truncated = true;
      else {
        this.bytes += payload.length;
        let audio = this.inputs.get(input);
        if (!audio) this.inputs.set(input, (audio = { input, payloads: [] }));
        audio.payloads.push(this.keep(payload));
      }
    }
    return recorded;
  }

  /** The payload as kept: base64 text decoded, base64 bytes copied, each into a slab; raw bytes as they are. */
  private keep(payload: NonNullable<DecodedEvent['payload']>): Buffer | Base64Audio {
    if (Buffer.isBuffer(payload)) return payload;
    if (typeof payload !== 'string') {
      const copy = this.room(payload.base64.length);
      payload.base64.copy(copy);
      return new Base64Audio(copy);
    }
    const room = this.room(Buffer.byteLength(payload, 'base64'));
    return room.subarray(0, room.write(payload, 'base64'));
  }

  /** `bytes` of a slab, a new one when the last has not that much left. */
  private room(bytes: number): Buffer {
    if (this.slab.length - this.used < bytes) {
      this.slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, bytes));
      this.used = 0;
    }
    const room = this.slab.subarray(this.used, this.used + bytes);
    this.used += bytes;
    return room;
  }

  /** What was kept; undefined when nothing was. */
  result(): ReceivedAudio | undefined {
    return this.inputs.size > 0 || this.truncated ? { inputs: [...this.inputs.values()], bytes: this.bytes, truncated: this.truncated } : undefined;
  }
}

/** A slab's size: a few payloads, and at most this much left unused per session. */
const SLAB_BYTES = 32 * 1024;
