import type { DecodedEvent } from '../dialects/dialect.js';

/** One input's received audio, undecoded: payloads in arrival order (base64 text or raw bytes). */
export interface InputAudio {
  input: number;
  payloads: Array<string | Buffer>;
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
 * and keeps it (no copy, no decoding) up to `limitBytes` per session: 0 keeps none,
 * when no after-run analysis needs it.
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
        audio.payloads.push(payload);
      }
    }
    return recorded;
  }

  /** What was kept; undefined when nothing was. */
  result(): ReceivedAudio | undefined {
    return this.inputs.size > 0 || this.truncated ? { inputs: [...this.inputs.values()], bytes: this.bytes, truncated: this.truncated } : undefined;
  }
}
