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
}

const EQUALS = 0x3d;

/** Audio as a dialect found it: base64 text, base64 bytes, or the raw bytes. */
export type AudioPayload = string | Buffer | Base64Audio;

/**
 * The raw bytes of payloads in order, joined (after the run: base64 is decoded here),
 * each decoded straight into the one buffer rather than into a buffer of its own first.
 */
export function joinedBytes(payloads: ReadonlyArray<AudioPayload>): Buffer {
  let size = 0;
  for (const p of payloads) size += typeof p === 'string' ? Buffer.byteLength(p, 'base64') : p instanceof Base64Audio ? p.decodedBytes : p.length;
  const joined = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of payloads) {
    if (Buffer.isBuffer(p)) at += p.copy(joined, at);
    else at += joined.write(typeof p === 'string' ? p : p.base64.toString('latin1'), at, 'base64');
  }
  return joined.subarray(0, at);
}
