import { decodeWaveToFloat32Channels } from '@echogarden/wave-codec';

/** Mono float audio at its own sample rate. */
export interface MonoAudio {
  samples: Float32Array;
  sampleRate: number;
}

/** Decodes a WAV file (PCM 8/16/24/32-bit, float, mu-law, A-law) and downmixes it to mono. */
export function decodeWav(bytes: Uint8Array): MonoAudio {
  const { audioChannels, sampleRate } = decodeWaveToFloat32Channels(bytes);
  const first = audioChannels[0];
  if (!first) throw new Error('the file has no audio channels');
  return { samples: downmix(audioChannels), sampleRate };
}

function downmix(channels: Float32Array[]): Float32Array {
  if (channels.length === 1) return channels[0]!;
  const length = channels[0]!.length;
  const mono = new Float32Array(length);
  for (const channel of channels) {
    for (let i = 0; i < length; i++) mono[i]! += channel[i]! / channels.length;
  }
  return mono;
}
