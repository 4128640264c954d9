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
  for (let offset = 12; offset + 8 <= bytes.length; ) {
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
