/**
 * The 44-byte header of a PCM16 mono WAV file of `dataBytes` of audio. A stream whose
 * length is not known yet gives none: both sizes are then 0xFFFFFFFF, the placeholder
 * vLLM-Omni and OpenAI send ahead of streamed WAV.
 */
export function pcm16WavHeader(sampleRate: number, dataBytes?: number): Buffer {
  const header = Buffer.alloc(44);
  const unknown = dataBytes === undefined;
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(unknown ? 0xffffffff : 36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(unknown ? 0xffffffff : dataBytes, 40);
  return header;
}
