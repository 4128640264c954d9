import type { DecodedEvent } from '../dialects/dialect.js';

/** One input's received audio: payloads in arrival order, as bytes (base64 decoded as it was kept). */
export interface InputAudio {
  input: number;
  payloads: Buffer[];
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
 */
export class AudioKeeper {
  private readonly inputs = new Map<number, InputAudio>();
  private bytes = 0;
  private truncated = false;

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
        audio.payloads.push(typeof payload === 'string' ? Buffer.from(payload, 'base64') : payload);
      }
    }
    return recorded;
  }

  /** What was kept; undefined when nothing was. */
  result(): ReceivedAudio | undefined {
    return this.inputs.size > 0 || this.truncated ? { inputs: [...this.inputs.values()], bytes: this.bytes, truncated: this.truncated } : undefined;
  }
}
