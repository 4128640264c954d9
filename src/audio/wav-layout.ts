/** What a WAV file's header says: its codec, frame size, and how much audio it declares. */
export interface WavLayout {
  /** WAVE format tag (1 PCM, 3 float, 6 A-law, 7 mu-law; the sub-format for WAVE_FORMAT_EXTENSIBLE). */
  formatId: number;
  /** Bytes per frame (all channels). */
  blockAlign: number;
  /** Size of the `data` chunk as the header declares it. */
  declaredDataBytes: number;
}

/** The WAV codecs @echogarden/wave-codec decodes. */
export const DECODABLE_WAV_FORMATS = new Set([1, 3, 6, 7]);

const FORMAT_NAMES: Record<number, string> = {
  0x0002: 'Microsoft ADPCM',
  0x0011: 'IMA ADPCM',
  0x0031: 'GSM 6.10',
  0x0050: 'MPEG audio',
  0x0055: 'MP3',
};

export function wavFormatName(formatId: number): string {
  return FORMAT_NAMES[formatId] ?? `format tag ${formatId}`;
}

/**
 * Walks the RIFF chunks up to `data`. Throws an Error with the reason when the
 * header is damaged; a `data` chunk larger than the file is returned as declared,
 * for the caller to compare with what decodes.
 */
export function readWavLayout(bytes: Uint8Array): WavLayout {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: Omit<WavLayout, 'declaredDataBytes'> | undefined;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'data') {
      if (!format) throw new Error("the WAV header has its 'data' chunk before its 'fmt ' chunk");
      return { ...format, declaredDataBytes: size };
    }
    if (body + size > bytes.length) throw new Error(`the WAV header is damaged: its '${id}' chunk runs past the end of the file`);
    if (id === 'fmt ') {
      if (size < 16) throw new Error("the WAV header is damaged: its 'fmt ' chunk is too short");
      const tag = view.getUint16(body, true);
      // WAVE_FORMAT_EXTENSIBLE carries the real codec in the first two bytes of its sub-format GUID.
      const formatId = tag === 0xfffe && size >= 26 ? view.getUint16(body + 24, true) : tag;
      const blockAlign = view.getUint16(body + 12, true);
      if (blockAlign === 0) throw new Error('the WAV header is damaged: it declares 0 bytes per frame');
      format = { formatId, blockAlign };
    }
    offset = body + size + (size % 2);
  }
  throw new Error(format ? "the WAV file has no 'data' chunk" : "the WAV file has no 'fmt ' chunk");
}

/** What a received WAV file's 'fmt ' chunk declares. */
export interface WavFormat {
  formatId: number;
  channels: number;
  rate: number;
  byteRate: number;
  blockAlign: number;
  bits: number;
}

/** A received WAV header, read up to its 'data' chunk. */
export interface WavHead {
  format?: WavFormat;
  /** Where the audio starts: the byte after the 'data' chunk's header. */
  dataOffset: number;
  /** The 'data' chunk's size as declared (0xFFFFFFFF: streamed, length unknown). */
  declaredDataBytes: number;
  /** Chunks the walk stepped over because their sizes could not be true. */
  problems: string[];
}

/** A chunk before 'data' claiming more than this is not believed: LIST, bext and the like hold a few KiB. */
export const WAV_CHUNK_LIMIT = 64 * 1024;

/**
 * Reads a received WAV header (`bytes` from 'RIFF') up to its 'data' chunk; undefined
 * while the bytes so far do not reach it (or, `whole`, when the file has none). A
 * server's sizes are not trusted: a chunk that claims more than WAV_CHUNK_LIMIT bytes,
 * or (`whole`: the file is complete) more than the file holds, is stepped over to the
 * next 'fmt ' or 'data' tag after it and named in `problems`, so the audio behind it is kept.
 */
export function readWavHead(bytes: Buffer, whole: boolean): WavHead | undefined {
  const problems: string[] = [];
  let format: WavFormat | undefined;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = bytes.toString('latin1', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'data') return { ...(format ? { format } : {}), dataOffset: body, declaredDataBytes: size, problems };
    const end = body + size + (size % 2);
    if (size > WAV_CHUNK_LIMIT || (whole && end > bytes.length)) {
      const next = nextChunkTag(bytes, body);
      if (next < 0) return undefined;
      problems.push(
        `the WAV header's '${id.replace(/[^\x20-\x7e]/g, '?')}' chunk claims ${size} bytes, more than ${whole ? 'the file holds' : 'a header chunk holds'}; it was stepped over`,
      );
      offset = next;
      continue;
    }
    if (id === 'fmt ') {
      if (end > bytes.length) return undefined;
      if (size >= 16) {
        format = {
          formatId: bytes.readUInt16LE(body),
          channels: bytes.readUInt16LE(body + 2),
          rate: bytes.readUInt32LE(body + 4),
          byteRate: bytes.readUInt32LE(body + 8),
          blockAlign: bytes.readUInt16LE(body + 12),
          bits: bytes.readUInt16LE(body + 14),
        };
      }
    }
    offset = end;
  }
  return undefined;
}

/** The next 'fmt ' or 'data' tag at or after `from`, or -1. */
function nextChunkTag(bytes: Buffer, from: number): number {
  const tags = [bytes.indexOf('fmt ', from, 'latin1'), bytes.indexOf('data', from, 'latin1')].filter((i) => i >= 0);
  return tags.length > 0 ? Math.min(...tags) : -1;
}

/** Why audio in `format` has no duration, if it has none: a sample rate or a channel count of 0. */
export function timelessFormat(format: WavFormat): string | undefined {
  if (format.rate === 0) return 'the WAV header declares a sample rate of 0 Hz';
  if (format.channels === 0) return 'the WAV header declares 0 channels';
  return undefined;
}
