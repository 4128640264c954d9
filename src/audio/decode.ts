import { bufferToFloat32Channels, decodeWaveToBuffer, SampleFormat } from '@echogarden/wave-codec';
import { declaredLength, type DeclaredLength } from './declared-length.js';
import { decodeFlac } from './flac-decode.js';
import { SUPPORTED_FORMATS, sniffFormat, type AudioFormat } from './format.js';
import { DECODABLE_WAV_FORMATS, readWavLayout, wavFormatName } from './wav-layout.js';

/** Mono float audio at its own sample rate. */
export interface MonoAudio {
  samples: Float32Array;
  sampleRate: number;
  /** The same samples as 16-bit PCM, when they are exactly that (prepared audio): what `toPcm16(samples)` would give. */
  pcm16?: Buffer;
}

/** Length in seconds, read without turning prepared PCM into floats. */
export function audioSeconds(audio: MonoAudio): number {
  return (audio.pcm16 ? audio.pcm16.length / 2 : audio.samples.length) / audio.sampleRate;
}

/** Audio that cannot be used; `reason` says why without naming the file, `message` names it. */
export class AudioDecodeError extends Error {
  override name = 'AudioDecodeError';
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

/** Decodes a WAV file (PCM 8/16/24/32-bit, float, mu-law, A-law) and downmixes it to mono. */
export function decodeWav(bytes: Uint8Array): MonoAudio {
  const { channelData, sampleRate } = decodeWavChannels(bytes);
  return { samples: channelData[0]!, sampleRate };
}

interface Channels {
  channelData: Float32Array[];
  sampleRate: number;
}

interface ChunkDecoder {
  decode(bytes: Uint8Array): Channels;
  flush?(): Channels;
  free(): void;
}

/** The lossy formats' decoders (WASM), each module loaded the first time a file needs it. */
const COMPRESSED: Record<Exclude<AudioFormat, 'wav' | 'flac'>, () => Promise<ChunkDecoder>> = {
  mp3: async () => (await import('@audio/decode-mp3')).decoder(),
  vorbis: async () => (await import('@audio/decode-vorbis')).decoder(),
  opus: async () => (await import('@audio/decode-opus')).decoder(),
};

async function decodeCompressed(format: Exclude<AudioFormat, 'wav' | 'flac'>, bytes: Uint8Array): Promise<Channels> {
  const decoder = await COMPRESSED[format]();
  try {
    // The decoders print a line per bad frame; the caller reports one reason per file instead.
    return withConsoleMuted(() => {
      const body = decoder.decode(bytes);
      const tail = decoder.flush?.();
      return tail ? concatChannels(body, tail) : body;
    });
  } finally {
    decoder.free();
  }
}

function withConsoleMuted<T>(fn: () => T): T {
  const { error, warn, log } = console;
  console.error = console.warn = console.log = () => {};
  try {
    return fn();
  } finally {
    Object.assign(console, { error, warn, log });
  }
}

function concatChannels(a: Channels, b: Channels): Channels {
  if (!b.channelData[0]?.length) return a;
  if (!a.channelData[0]?.length) return b;
  const channelData = a.channelData.map((head, i) => {
    const tail = b.channelData[i] ?? b.channelData[0]!;
    const joined = new Float32Array(head.length + tail.length);
    joined.set(head);
    joined.set(tail, head.length);
    return joined;
  });
  return { channelData, sampleRate: a.sampleRate };
}

/**
 * Decodes WAV (any PCM depth, float, mu-law, A-law), FLAC (any depth), MP3, Ogg Vorbis or Opus,
 * recognised from the bytes, and downmixes to mono. `name` only labels errors.
 * Throws AudioDecodeError for an empty, unrecognised, unsupported, corrupt or
 * truncated file, one that decodes to no samples, and one whose header declares more
 * audio than it holds.
 */
export async function decodeAudio(bytes: Uint8Array, name: string): Promise<MonoAudio> {
  const fail = (reason: string): never => {
    throw new AudioDecodeError(name, reason);
  };
  if (bytes.length === 0) fail('the file is empty (0 bytes)');
  const format = sniffFormat(bytes);
  if (format === null) return fail(`not a recognised audio file; voxbench reads ${SUPPORTED_FORMATS}`);
  if (typeof format === 'object') return fail(`${format.unsupported} is not supported; convert it to one of ${SUPPORTED_FORMATS} (e.g. with sox or ffmpeg)`);
  let channels: Channels;
  let declared: DeclaredLength | null;
  try {
    declared = declaredLength(format, bytes);
    channels = format === 'wav' ? decodeWavChannels(bytes) : format === 'flac' ? decodeFlacChannels(bytes) : await decodeCompressed(format, bytes);
  } catch (err) {
    return fail((err as Error).message);
  }
  const frames = channels.channelData[0]?.length ?? 0;
  if (frames === 0 || channels.sampleRate === 0) {
    return fail(
      declared?.frames === 0
        ? 'the file holds no audio samples (zero length)'
        : `no audio could be decoded: the ${FORMAT_NAMES[format]} data is corrupt or truncated`,
    );
  }
  if (declared && frames < declared.frames - declared.tolerance) {
    const seconds = (n: number): string => `${(n / channels.sampleRate).toFixed(2)} s`;
    fail(
      `the header declares ${seconds(declared.frames)} of audio but only ${seconds(frames)} could be decoded: the file is truncated or corrupt, or its header is wrong`,
    );
  }
  return { samples: downmix(channels.channelData), sampleRate: channels.sampleRate };
}

const FORMAT_NAMES: Record<AudioFormat, string> = { wav: 'WAV', flac: 'FLAC', mp3: 'MP3', vorbis: 'Ogg Vorbis', opus: 'Opus' };

/**
 * A WAV file's audio, downmixed as it is read: PCM and float samples go straight from
 * the interleaved bytes into one mono array (no per-channel arrays); mu-law and A-law
 * through the codec library's own tables.
 */
function decodeWavChannels(bytes: Uint8Array): Channels {
  const { formatId } = readWavLayout(bytes);
  if (!DECODABLE_WAV_FORMATS.has(formatId)) {
    throw new Error(`${wavFormatName(formatId)} in WAV is not supported; convert it to PCM (e.g. sox in.wav -e signed -b 16 out.wav)`);
  }
  const { decodedAudioBuffer: data, sampleRate, channelCount, bitDepth, sampleFormat } = decodeWaveToBuffer(bytes);
  if (sampleFormat === SampleFormat.PCM || sampleFormat === SampleFormat.Float) {
    return { channelData: [interleavedToMono(data, channelCount, bitDepth, sampleFormat === SampleFormat.Float)], sampleRate };
  }
  return { channelData: [downmix(bufferToFloat32Channels(data, channelCount, bitDepth, sampleFormat))], sampleRate };
}

/**
 * Whole frames of interleaved little-endian samples averaged into mono, scaled as the
 * codec library scales them (16-bit by 1/32768, so 16-bit mono round-trips exactly).
 * `data` is the library's own aligned copy of the data chunk, so typed views need no copy.
 */
function interleavedToMono(data: Uint8Array, channels: number, bits: number, float: boolean): Float32Array {
  const frames = Math.floor(data.length / ((bits / 8) * channels));
  const count = frames * channels;
  const mono = new Float32Array(frames);
  if (bits === 24) {
    const scale = 1 / (8_388_608 * channels);
    for (let f = 0, b = 0; f < frames; f++) {
      let sum = 0;
      for (let c = 0; c < channels; c++, b += 3) sum += ((data[b]! | (data[b + 1]! << 8) | (data[b + 2]! << 16)) << 8) >> 8;
      mono[f] = sum * scale;
    }
    return mono;
  }
  const [values, full] = float
    ? bits === 32
      ? [new Float32Array(data.buffer, data.byteOffset, count), 1]
      : [new Float64Array(data.buffer, data.byteOffset, count), 1]
    : bits === 8
      ? [data, 128]
      : bits === 16
        ? [new Int16Array(data.buffer, data.byteOffset, count), 32_768]
        : [new Int32Array(data.buffer, data.byteOffset, count), 2_147_483_648];
  const offset = bits === 8 && !float ? 128 * channels : 0;
  const scale = 1 / (full * channels);
  if (channels === 1) {
    for (let f = 0; f < frames; f++) mono[f] = (values[f]! - offset) * scale;
  } else if (channels === 2) {
    for (let f = 0; f < frames; f++) mono[f] = (values[2 * f]! + values[2 * f + 1]! - offset) * scale;
  } else {
    for (let f = 0, i = 0; f < frames; f++) {
      let sum = -offset;
      for (let c = 0; c < channels; c++) sum += values[i++]!;
      mono[f] = sum * scale;
    }
  }
  return mono;
}

/** A FLAC file's audio, decoded straight to mono, scaled as WAV's PCM (`flac-decode.ts`). */
function decodeFlacChannels(bytes: Uint8Array): Channels {
  const { samples, sampleRate } = decodeFlac(bytes);
  return { channelData: [samples], sampleRate };
}

/** The average of the channels, summed in doubles (one pass each for the common stereo case). */
function downmix(channels: Float32Array[]): Float32Array {
  if (channels.length === 1) return channels[0]!;
  const length = channels[0]!.length;
  const mono = new Float32Array(length);
  if (channels.length === 2) {
    const [left, right] = channels as [Float32Array, Float32Array];
    for (let i = 0; i < length; i++) mono[i] = (left[i]! + right[i]!) * 0.5;
    return mono;
  }
  for (let i = 0; i < length; i++) {
    let sum = 0;
    for (const channel of channels) sum += channel[i]!;
    mono[i] = sum / channels.length;
  }
  return mono;
}
