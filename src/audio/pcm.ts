/**
 * Float samples in [-1, 1] to 16-bit little-endian PCM, clipping out-of-range values.
 * Scales by 32768, the inverse of the WAV decoder, so 16-bit files round-trip exactly.
 */
export function toPcm16(samples: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.round(samples[i]! * 32768);
    out.writeInt16LE(s > 32767 ? 32767 : s < -32768 ? -32768 : s, i * 2);
  }
  return out;
}

/** Duration in ms of `bytes` of 16-bit mono PCM at `sampleRate`. */
export function pcm16DurationMs(bytes: number, sampleRate: number): number {
  return (bytes / 2 / sampleRate) * 1000;
}

/** 16-bit little-endian PCM to float samples in [-1, 1), the inverse of `toPcm16`. */
export function fromPcm16(pcm: Buffer): Float32Array {
  const out = new Float32Array(pcm.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = pcm.readInt16LE(i * 2) / 32768;
  return out;
}
