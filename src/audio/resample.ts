import libsamplerate from '@alexanderolsen/libsamplerate-js';
import type { MonoAudio } from './decode.js';

const { create, ConverterType } = libsamplerate;

/**
 * Band-limited resampling (libsamplerate's medium-quality sinc: >120 dB SNR, flat to
 * 0.99 of Nyquist). Done once per sample before any clock starts, never per chunk.
 */
export async function resample(audio: MonoAudio, targetRate: number): Promise<MonoAudio> {
  if (audio.sampleRate === targetRate) return audio;
  const converter = await create(1, audio.sampleRate, targetRate, {
    converterType: ConverterType.SRC_SINC_MEDIUM_QUALITY,
  });
  try {
    return { samples: converter.simple(audio.samples), sampleRate: targetRate };
  } finally {
    converter.destroy();
  }
}
