/**
 * Float samples in [-1, 1] to 16-bit little-endian PCM, clipping out-of-range values.
 * Scales by 32768, the inverse of the WAV decoder, so 16-bit files round-trip exactly.
 * Written through an Int16Array: the platforms Node runs on are little-endian.
 */
export function toPcm16(samples: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length * 2);
  writePcm16(samples, out, 0);
  return out;
}

/** `toPcm16` into `out` from byte `at` (even), for callers that frame the audio in a larger buffer. */
export function writePcm16(samples: Float32Array, out: Buffer, at: number): void {
  // An Int16Array view needs an even byte offset; a Buffer from the pool may not have one.
  const aligned = (out.byteOffset + at) % 2 === 0;
  const pcm = aligned ? new Int16Array(out.buffer, out.byteOffset + at, samples.length) : new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.round(samples[i]! * 32768);
    pcm[i] = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
  }
  if (!aligned) out.set(new Uint8Array(pcm.buffer), at);
}

/** Duration in ms of `bytes` of 16-bit mono PCM at `sampleRate`. */
export function pcm16DurationMs(bytes: number, sampleRate: number): number {
  return (bytes / 2 / sampleRate) * 1000;
}

/** 16-bit little-endian PCM to float samples in [-1, 1), the inverse of `toPcm16`. */
export function fromPcm16(pcm: Buffer): Float32Array {
  const out = new Float32Array(pcm.length >> 1);
  const aligned = pcm.byteOffset % 2 === 0;
  const values = aligned ? new Int16Array(pcm.buffer, pcm.byteOffset, out.length) : new Int16Array(Uint8Array.from(pcm.subarray(0, out.length * 2)).buffer);
  for (let i = 0; i < out.length; i++) out[i] = values[i]! / 32768;
  return out;
}
