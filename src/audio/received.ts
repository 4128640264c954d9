import { joinedBytes, type AudioPayload } from './base64-audio.js';
import { decodeAudio } from './decode.js';
import { decodeFlac } from './flac-decode.js';
import { DEFAULT_SPEECH_RMS, energyOnsetMs, FRAME_MS, int16Samples, samplesRms } from './energy.js';
import { toPcm16 } from './pcm.js';
import { readWavHead, timelessFormat } from './wav-layout.js';

/** Received speech as PCM16 mono, with what its bytes disagree with in what was declared. */
export interface DecodedSpeech {
  /** Empty when the sample rate is 0: audio with no duration is no audio. */
  pcm: Buffer;
  sampleRate: number;
  formatProblems: string[];
}

/**
 * Decodes a response's undecoded payloads (base64 text or bytes, or raw bytes, in arrival order),
 * after the run: a WAV stream by its header (streamed WAV declares 0xFFFFFFFF sizes), an
 * encoded body (MP3, FLAC, Opus, ...) by its decoder, anything else as headerless PCM16
 * at `declaredRate`.
 */
export async function decodeReceivedAudio(payloads: ReadonlyArray<AudioPayload>, declaredRate: number): Promise<DecodedSpeech> {
  const decoded = await decodeBytes(payloads, declaredRate);
  if (decoded.sampleRate > 0 || decoded.pcm.length === 0) return decoded;
  return {
    pcm: Buffer.alloc(0),
    sampleRate: 0,
    formatProblems: [...decoded.formatProblems, `the audio declares a sample rate of ${decoded.sampleRate} Hz: it has no duration`],
  };
}

async function decodeBytes(payloads: ReadonlyArray<AudioPayload>, declaredRate: number): Promise<DecodedSpeech> {
  const bytes = joinedBytes(payloads);
  const problems: string[] = [];
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE') return fromWav(bytes, problems);
  if (bytes.toString('latin1', 0, 4) === 'fLaC') {
    // A stream kept up to a byte limit can end inside a frame: the frames before it are the audio.
    const audio = decodeFlac(bytes, { keepCutShort: true });
    if (audio.cutShort) problems.push(audio.cutShort);
    return { pcm: toPcm16(audio.samples), sampleRate: audio.sampleRate, formatProblems: problems };
  }
  if (looksEncoded(bytes)) {
    const audio = await decodeAudio(bytes, 'the received audio');
    return { pcm: toPcm16(audio.samples), sampleRate: audio.sampleRate, formatProblems: problems };
  }
  if (bytes.length % 2 !== 0) problems.push(`${bytes.length} bytes of PCM16 is not a whole number of samples`);
  return { pcm: bytes.subarray(0, bytes.length & ~1), sampleRate: declaredRate, formatProblems: problems };
}

function looksEncoded(bytes: Buffer): boolean {
  const head = bytes.toString('latin1', 0, 4);
  return head === 'fLaC' || head === 'OggS' || head.startsWith('ID3') || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0);
}

function fromWav(bytes: Buffer, problems: string[]): DecodedSpeech {
  const head = readWavHead(bytes, true);
  if (!head?.format) {
    problems.push(head ? "the WAV header has no 'fmt ' chunk before its 'data' chunk" : "the WAV file has no 'data' chunk");
    return { pcm: Buffer.alloc(0), sampleRate: 0, formatProblems: problems };
  }
  const { format, declaredDataBytes: size } = head;
  problems.push(...head.problems);
  const timeless = timelessFormat(format);
  if (timeless) {
    problems.push(`${timeless}: its audio has no duration`);
    return { pcm: Buffer.alloc(0), sampleRate: 0, formatProblems: problems };
  }
  const data = bytes.subarray(head.dataOffset);
  if (format.formatId !== 1 || format.bits !== 16) problems.push(`the WAV header declares format ${format.formatId} at ${format.bits} bits, not 16-bit PCM`);
  if (format.byteRate !== format.rate * format.blockAlign)
    problems.push(`the WAV header's byte rate ${format.byteRate} is not its rate × block align (${format.rate} × ${format.blockAlign})`);
  if (size !== 0xffffffff && size !== data.length) problems.push(`the WAV header declares ${size} bytes of audio, ${data.length} arrived`);
  if (data.length % Math.max(1, format.blockAlign) !== 0)
    problems.push(`${data.length} bytes of audio is not a whole number of ${format.blockAlign}-byte frames`);
  return {
    pcm: mono(data.subarray(0, data.length - (data.length % Math.max(2, format.blockAlign))), format.channels),
    sampleRate: format.rate,
    formatProblems: problems,
  };
}

function mono(pcm: Buffer, channels: number): Buffer {
  if (channels <= 1) return pcm;
  const frames = Math.floor(pcm.length / 2 / channels);
  const out = Buffer.alloc(frames * 2);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += pcm.readInt16LE((f * channels + c) * 2);
    out.writeInt16LE(Math.round(sum / channels), f * 2);
  }
  return out;
}

/** Level checks of PCM16 speech: leading silence (energy onset), clipped samples and silent frames, as shares. */
export function speechLevels(pcm: Buffer, sampleRate: number): { leadingSilenceMs: number | null; clippingRatio: number; silenceRatio: number } {
  const samples = pcm.length >> 1;
  // Read through one typed view: a call per sample (readInt16LE) and a view per frame made this most of the after-run analysis's time.
  const view = int16Samples(pcm);
  let clipped = 0;
  for (let i = 0; i < samples; i++) {
    const s = view[i]!;
    if (s >= 32767 || s <= -32768) clipped++;
  }
  const frame = Math.max(1, Math.round((sampleRate * FRAME_MS) / 1000));
  let frames = 0;
  let silent = 0;
  for (let i = 0; i + frame <= samples; i += frame, frames++) if (samplesRms(view, i, frame) < DEFAULT_SPEECH_RMS) silent++;
  return { leadingSilenceMs: energyOnsetMs(pcm, sampleRate), clippingRatio: samples ? clipped / samples : 0, silenceRatio: frames ? silent / frames : 0 };
}
