import { decodeAudio, type MonoAudio } from './decode.js';
import { fromPcm16, writePcm16 } from './pcm.js';
import { resampleSamples } from './resample.js';

/** A file's audio as a run sends it: mono 16-bit PCM at the run's rate, and the rate the file had. */
export interface PreparedAudio {
  pcm: Int16Array;
  rate: number;
  sourceRate: number;
}

/**
 * The expensive part of preparing a recording, done once per file (in a worker thread,
 * or read back from the disk cache): decode, downmix, resample to `rate`, quantise to
 * 16 bits. Throws AudioDecodeError as `decodeAudio` does.
 */
export async function prepareAudio(bytes: Uint8Array, name: string, rate: number): Promise<PreparedAudio> {
  const decoded = await decodeAudio(bytes, name);
  const samples = decoded.sampleRate === rate ? decoded.samples : resampleSamples(decoded.samples, decoded.sampleRate, rate);
  // Its own memory, exactly its size, so that a thread can transfer it (small Buffers share Node's pool).
  const pcm = new Int16Array(samples.length);
  writePcm16(samples, Buffer.from(pcm.buffer), 0);
  return { pcm, rate, sourceRate: decoded.sampleRate };
}

/**
 * Prepared audio as a sample holds it: its PCM16, and float samples made from it the
 * first time something asks (a streaming run never does; 16-bit values round-trip exactly).
 */
export function preparedMono(prepared: PreparedAudio): MonoAudio {
  const pcm16 = Buffer.from(prepared.pcm.buffer, prepared.pcm.byteOffset, prepared.pcm.byteLength);
  let samples: Float32Array | undefined;
  return {
    sampleRate: prepared.rate,
    pcm16,
    get samples() {
      return (samples ??= fromPcm16(pcm16));
    },
  };
}
