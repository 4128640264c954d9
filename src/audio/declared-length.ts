import type { AudioFormat } from './format.js';
import { readWavLayout } from './wav-layout.js';

/**
 * How many frames (samples per channel) a file's header says it holds, and how many
 * fewer a sound decode may return. The decoders skip what they cannot read without
 * failing, so comparing against the header is how a truncated or corrupt file, or
 * a header that lies about its size, is caught.
 */
export interface DeclaredLength {
  frames: number;
  tolerance: number;
}

/** The header's claim, or null when the format or file states no length. Throws on a truncated Ogg stream. */
export function declaredLength(format: AudioFormat, bytes: Uint8Array): DeclaredLength | null {
  switch (format) {
    case 'wav': {
      const { declaredDataBytes, blockAlign } = readWavLayout(bytes);
      return { frames: Math.floor(declaredDataBytes / blockAlign), tolerance: 0 };
    }
    case 'flac':
      return flacTotalSamples(bytes);
    case 'vorbis':
    case 'opus':
      return oggLength(bytes, format);
    case 'mp3':
      return mp3XingLength(bytes);
  }
}

/** STREAMINFO's 36-bit total sample count (0 means unknown). */
function flacTotalSamples(bytes: Uint8Array): DeclaredLength | null {
  if (bytes.length < 26) return null;
  const total = (bytes[21]! & 0x0f) * 2 ** 32 + ((bytes[22]! << 24) >>> 0) + (bytes[23]! << 16) + (bytes[24]! << 8) + bytes[25]!;
  return total > 0 ? { frames: total, tolerance: 0 } : null;
}

/**
 * The last page's granule position is the stream's length in samples (Opus counts at
 * 48 kHz and includes the pre-skip the decoder drops). A stream must end with an
 * end-of-stream page; one that does not was cut short.
 */
function oggLength(bytes: Uint8Array, format: 'vorbis' | 'opus'): DeclaredLength | null {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const last = buffer.lastIndexOf('OggS');
  if (last < 0 || last + 14 > buffer.length) return null;
  if ((buffer[last + 5]! & 0x04) === 0) throw new Error('the Ogg stream ends without its end-of-stream page: the file is truncated');
  const granule = Number(buffer.readBigInt64LE(last + 6));
  if (granule < 0) return null;
  const preSkip = format === 'opus' ? buffer.readUInt16LE(buffer.indexOf('OpusHead') + 10) : 0;
  return { frames: granule - preSkip, tolerance: 0 };
}

/**
 * The frame count of a Xing/Info header (LAME writes one into every file). Decoders
 * trim the encoder delay and padding, which stay under three frames.
 */
function mp3XingLength(bytes: Uint8Array): DeclaredLength | null {
  let frame = 0;
  if (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33 && bytes.length >= 10) {
    const tagSize = (bytes[6]! << 21) | (bytes[7]! << 14) | (bytes[8]! << 7) | bytes[9]!;
    frame = 10 + tagSize + (bytes[5]! & 0x10 ? 10 : 0);
  }
  if (frame + 4 > bytes.length || bytes[frame] !== 0xff) return null;
  const mpeg1 = ((bytes[frame + 1]! >> 3) & 3) === 3;
  const layer = 4 - ((bytes[frame + 1]! >> 1) & 3);
  const mono = ((bytes[frame + 3]! >> 6) & 3) === 3;
  const sideInfo = mpeg1 ? (mono ? 17 : 32) : mono ? 9 : 17;
  const xing = frame + 4 + sideInfo;
  if (xing + 12 > bytes.length) return null;
  const tag = String.fromCharCode(...bytes.subarray(xing, xing + 4));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if ((tag !== 'Xing' && tag !== 'Info') || (view.getUint32(xing + 4) & 1) === 0) return null;
  const samplesPerFrame = layer === 1 ? 384 : layer === 3 && !mpeg1 ? 576 : 1152;
  return { frames: view.getUint32(xing + 8) * samplesPerFrame, tolerance: 3 * samplesPerFrame };
}
