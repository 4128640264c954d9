/**
 * Base64 audio as the bytes of its characters, as they arrived: a receive path that
 * finds an event's audio in the frame's bytes keeps it so, never making a string of it
 * (a string lives on the JS heap, where garbage collection copies and marks it) and never
 * decoding it while sessions stream; the after-run analysis decodes it.
 */
export class Base64Audio {
  constructor(readonly base64: Buffer) {}

  /** Characters, as a base64 string's length counts them. */
  get length(): number {
    return this.base64.length;
  }

  /** The bytes it decodes to, from its length and padding alone. */
  get decodedBytes(): number {
    const { base64 } = this;
    const end = base64.length;
    const padding = end >= 1 && base64[end - 1] === EQUALS ? (end >= 2 && base64[end - 2] === EQUALS ? 2 : 1) : 0;
    return Math.max(0, Math.floor((end * 3) / 4) - padding);
  }

  /** Its audio (after the run). */
  decode(): Buffer {
    return Buffer.from(this.base64.toString('latin1'), 'base64');
  }
}

const EQUALS = 0x3d;

/** Audio as a dialect found it: base64 text, base64 bytes, or the raw bytes. */
export type AudioPayload = string | Buffer | Base64Audio;

/** The raw bytes of a payload (after the run: base64 is decoded here). */
export function payloadBytes(payload: AudioPayload): Buffer {
  return typeof payload === 'string' ? Buffer.from(payload, 'base64') : payload instanceof Base64Audio ? payload.decode() : payload;
}
