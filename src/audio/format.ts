/** The containers and codecs voxbench decodes. */
export type AudioFormat = 'wav' | 'flac' | 'mp3' | 'vorbis' | 'opus';

export const SUPPORTED_FORMATS = 'WAV, FLAC, MP3, Ogg Vorbis, Opus';

/** The media type of a file in each format (an upload's Content-Type, a `data:` URI's type). */
export const CONTENT_TYPES: Record<AudioFormat, string> = { wav: 'audio/wav', flac: 'audio/flac', mp3: 'audio/mpeg', vorbis: 'audio/ogg', opus: 'audio/ogg' };

/** A recognised format voxbench does not decode, named for the error message. */
export interface UnsupportedFormat {
  unsupported: string;
}

const ascii = (bytes: Uint8Array, start: number, length: number): string => String.fromCharCode(...bytes.subarray(start, start + length));

/**
 * The format of `bytes`, from their magic numbers rather than the file name (which
 * lies more often: `.wav` files holding MP3 are common). `null` when nothing matches.
 */
export function sniffFormat(bytes: Uint8Array): AudioFormat | UnsupportedFormat | null {
  const head = ascii(bytes, 0, 4);
  if (head === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE') return 'wav';
  if (head === 'RIFX' || head === 'RF64') return { unsupported: `${head} (big-endian or 64-bit WAV)` };
  if (head === 'fLaC') return 'flac';
  if (head === 'OggS') return sniffOggCodec(bytes);
  if (head === 'FORM') return { unsupported: 'AIFF' };
  if (head === 'caff') return { unsupported: 'CAF' };
  if (head === '#!AM') return { unsupported: 'AMR' };
  if (ascii(bytes, 4, 4) === 'ftyp') return { unsupported: 'MP4/M4A (AAC)' };
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return { unsupported: 'WebM/Matroska' };
  if (ascii(bytes, 0, 3) === 'ID3') return 'mp3';
  if (isMpegFrameHeader(bytes)) return (bytes[1]! & 0x06) === 0 ? { unsupported: 'AAC (ADTS)' } : 'mp3';
  return null;
}

/** The codec of an Ogg stream: its first packet starts with the codec's identification header. */
function sniffOggCodec(bytes: Uint8Array): AudioFormat | UnsupportedFormat {
  const segments = bytes[26] ?? 0;
  const packet = 27 + segments;
  if (ascii(bytes, packet, 8) === 'OpusHead') return 'opus';
  if (ascii(bytes, packet + 1, 6) === 'vorbis') return 'vorbis';
  if (ascii(bytes, packet + 1, 4) === 'FLAC') return { unsupported: 'FLAC in Ogg' };
  if (ascii(bytes, packet, 5) === 'Speex') return { unsupported: 'Ogg Speex' };
  return { unsupported: 'Ogg with an unknown codec' };
}

/**
 * An MPEG audio frame header: 11 sync bits, then a version, layer, bitrate and rate
 * that are not reserved values (so that arbitrary 0xFF runs are not taken for MP3).
 * Layer bits 00 are ADTS AAC, which shares the sync word.
 */
function isMpegFrameHeader(bytes: Uint8Array): boolean {
  const [b0, b1, b2] = [bytes[0] ?? 0, bytes[1] ?? 0, bytes[2] ?? 0];
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return false;
  if ((b1 & 0x06) === 0) return (b1 & 0xf6) === 0xf0;
  return (b1 & 0x18) !== 0x08 && b2 >> 4 !== 0x0f && ((b2 >> 2) & 3) !== 3;
}
