import type { MonoAudio } from './decode.js';
import { readWavHead } from './wav-layout.js';

/**
 * Speech energy: the one detector behind the client's `vad` end-of-speech source,
 * the simulated server's VAD and its placeholder words. A 20 ms frame is speech
 * when its RMS reaches the threshold (default 0.01, about -40 dBFS).
 */
export const FRAME_MS = 20;
export const DEFAULT_SPEECH_RMS = 0.01;

export interface SpeechSegment {
  startMs: number;
  endMs: number;
}

/** RMS of `count` PCM16 samples starting at byte `offset`, in [0, 1]. */
export function pcm16Rms(pcm: Buffer, offset: number, count: number): number {
  return samplesRms(int16Samples(pcm.subarray(offset, offset + count * 2)), 0, count);
}

/** A view of PCM16 as samples (a copy only when its byte offset is odd). */
export function int16Samples(pcm: Buffer): Int16Array {
  const whole = pcm.subarray(0, pcm.length & ~1);
  return whole.byteOffset % 2 === 0 ? new Int16Array(whole.buffer, whole.byteOffset, whole.length >> 1) : new Int16Array(Uint8Array.from(whole).buffer);
}

/** RMS of samples [start, start + count), in [0, 1]; integer squares sum exactly in a double (count · 2^30 stays far below 2^53). */
export function samplesRms(samples: Int16Array, start: number, count: number): number {
  let sum = 0;
  for (let i = start; i < start + count; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / count) / 32768;
}

/**
 * Speech segments of a whole PCM16 signal: runs of speech frames, merged across
 * pauses shorter than `minSilenceMs`.
 */
export function speechSegments(pcm: Buffer, sampleRate: number, minSilenceMs = 300, threshold = DEFAULT_SPEECH_RMS): SpeechSegment[] {
  const frame = Math.round((sampleRate * FRAME_MS) / 1000);
  const samples = int16Samples(pcm);
  const segments: SpeechSegment[] = [];
  for (let i = 0; i + frame <= samples.length; i += frame) {
    if (samplesRms(samples, i, frame) < threshold) continue;
    const startMs = (i / sampleRate) * 1000;
    const endMs = startMs + FRAME_MS;
    const last = segments[segments.length - 1];
    if (last && startMs - last.endMs < minSilenceMs) last.endMs = endMs;
    else segments.push({ startMs, endMs });
  }
  return segments;
}

/** RMS of the loudest 20 ms frame (of the PCM16 when the audio has it); below DEFAULT_SPEECH_RMS the audio holds no speech. */
export function loudestFrameRms(audio: MonoAudio): number {
  const frame = Math.max(1, Math.round((audio.sampleRate * FRAME_MS) / 1000));
  const { pcm16 } = audio;
  let loudest = 0;
  if (pcm16) {
    const samples = int16Samples(pcm16);
    for (let start = 0; start < samples.length; start += frame)
      loudest = Math.max(loudest, samplesRms(samples, start, Math.min(frame, samples.length - start)));
    return loudest;
  }
  const { samples } = audio;
  for (let start = 0; start < samples.length; start += frame) {
    const end = Math.min(start + frame, samples.length);
    let sum = 0;
    for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
    loudest = Math.max(loudest, Math.sqrt(sum / (end - start)));
  }
  return loudest;
}

/**
 * Where audible sound starts, ms (null when nothing is audible): the first 10 ms frame,
 * moved 1 ms at a time, whose mean-removed RMS reaches the threshold, as coval measures
 * a speech server's leading silence.
 */
export function energyOnsetMs(pcm: Buffer, sampleRate: number, threshold = DEFAULT_SPEECH_RMS): number | null {
  const frame = Math.max(1, Math.round(sampleRate / 100));
  const hop = Math.max(1, Math.round(sampleRate / 1000));
  const view = int16Samples(pcm);
  const samples = view.length;
  for (let start = 0; start + frame <= samples; start += hop) {
    let sum = 0;
    let squares = 0;
    for (let i = start; i < start + frame; i++) {
      const s = view[i]! / 32768;
      sum += s;
      squares += s * s;
    }
    const mean = sum / frame;
    if (Math.sqrt(Math.max(0, squares / frame - mean * mean)) >= threshold) return (start / sampleRate) * 1000;
  }
  return null;
}

/**
 * What a PCM16 WAV file's header and samples tell before it is decoded: its duration,
 * and whether any 20 ms frame of its mono mix reaches `threshold` (read in place, with
 * no copy, stopping at the first that does). Undefined for any other file, which must be
 * decoded to be known. A dataset checks this first, so a long silent file, or one the
 * duration bounds leave out, is refused without decoding it (a 2-hour one decodes to
 * about a gigabyte of samples).
 */
export function pcm16WavFacts(bytes: Uint8Array, threshold = DEFAULT_SPEECH_RMS): { durationS: number; audible: boolean } | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (buffer.length < 12 || buffer.toString('latin1', 0, 4) !== 'RIFF' || buffer.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  const head = readWavHead(buffer, true);
  const format = head?.format;
  if (!head || !format || format.formatId !== 1 || format.bits !== 16 || format.channels < 1 || format.rate < 1) return undefined;
  const channels = format.channels;
  const end = Math.min(buffer.length, head.dataOffset + head.declaredDataBytes);
  const frames = Math.floor((end - head.dataOffset) / (2 * channels));
  const frame = Math.max(1, Math.round((format.rate * FRAME_MS) / 1000));
  const limit = threshold * threshold * 32768 * 32768 * channels * channels;
  let audible = false;
  for (let start = 0; start < frames && !audible; start += frame) {
    const count = Math.min(frame, frames - start);
    let sum = 0;
    for (let i = start; i < start + count; i++) {
      let mixed = 0;
      for (let c = 0; c < channels; c++) mixed += buffer.readInt16LE(head.dataOffset + (i * channels + c) * 2);
      sum += mixed * mixed;
    }
    audible = sum / count >= limit;
  }
  return { durationS: frames / format.rate, audible };
}
