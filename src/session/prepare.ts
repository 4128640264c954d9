import type { SessionSettings, WebSocketDialect } from '../dialects/dialect.js';
import { speechSegments } from '../audio/energy.js';
import { CONTENT_TYPES, sniffFormat } from '../audio/format.js';
import { pcm16DurationMs, toPcm16 } from '../audio/pcm.js';
import { resample } from '../audio/resample.js';
import type { Sample } from '../data/dataset.js';
import type { EosSource, SpeakerTurn } from '../timeline/types.js';
import { placedTurns } from './bounds.js';

/** What preparing audio needs of a dialect: its rate, and how it frames a chunk. */
export type AudioFraming = Pick<WebSocketDialect, 'sampleRate' | 'audioFrame' | 'audioFramer'>;

/**
 * A chunk's frame, encoded before the clock starts: `frame(span)` at its span of the
 * session's audio stream (ms) is one ready buffer, the same for every span, unless the
 * dialect's frames name their position (`audioFramer`); then the payload is encoded once
 * and only the position is written per send.
 */
export interface FramedAudio {
  frame(span: { startMs: number; endMs: number }): Buffer;
  /** Sent as a binary frame (raw audio), else as a text frame (e.g. JSON with base64 audio). */
  binary: boolean;
}

/** One audio chunk, already framed and encoded. */
export interface PreparedChunk extends FramedAudio {
  /** Position in the turn's audio, ms. */
  audioStartMs: number;
  audioEndMs: number;
}

/** A turn's audio, chunked and encoded, with where its speech is; positions are ms into the turn. Its session settings apply when it opens a session. */
export interface PreparedTurn extends SessionSettings {
  kind?: 'audio';
  sampleId: string;
  split: string;
  reference: string | null;
  language?: string;
  /** Where each reference word ends, ms into the turn, when the dataset has word timings. */
  words?: Array<{ word: string; endMs: number }>;
  /** The sample's reference speaker turns, ms into the turn (bounded: `placedTurns`). */
  turns?: SpeakerTurn[];
  chunks: PreparedChunk[];
  audioMs: number;
  speechStartMs: number;
  speechEndMs: number;
  eosSource: EosSource;
}

/**
 * One chunk of silence, encoded before the clock starts, that a client streams while it
 * waits between utterances as a live microphone does, framed at each span of the
 * stream it fills, reusing the one encoded payload.
 */
export interface PreparedSilence extends FramedAudio {
  chunkMs: number;
}

/** `chunkMs` of silence as the dialect frames audio. */
export function prepareSilence(dialect: AudioFraming, chunkMs: number): PreparedSilence {
  const pcm = silence(chunkMs, dialect.sampleRate);
  const chunk = { startMs: 0, endMs: pcm16DurationMs(pcm.length, dialect.sampleRate) };
  return { chunkMs: chunk.endMs, ...framed(dialect, pcm, chunk) };
}

/** `pcm16` as the dialect frames it; a frame that names no position is built once, at `span` (where it sits in its turn). */
function framed(dialect: AudioFraming, pcm16: Buffer, span: { startMs: number; endMs: number }): FramedAudio {
  const framer = dialect.audioFramer?.(pcm16);
  if (framer) return { binary: false, frame: framer };
  const frame = dialect.audioFrame(pcm16, span);
  const bytes = typeof frame === 'string' ? Buffer.from(frame) : frame;
  return { binary: typeof frame !== 'string', frame: () => bytes };
}

/** Silence around utterances, ms. */
export interface Padding {
  /** Before each utterance. */
  leadMs: number;
  /** After each utterance. */
  trailMs: number;
  /** Between consecutive turns of a session, before the next turn's lead. */
  gapMs: number;
}

export const NO_PADDING: Padding = { leadMs: 0, trailMs: 0, gapMs: 0 };

export type EosPreference = 'auto' | EosSource;

/** A sample ready to stream: as a session's first turn, and as a later one (after the gap). */
export interface PreparedSample {
  first: PreparedTurn;
  later: PreparedTurn;
}

/**
 * Resamples a sample to the dialect's rate, pads it with silence, finds its end of
 * speech, and cuts it into encoded chunks. Runs before the clock starts; the result
 * is shared by every session that streams the sample.
 */
export async function prepareSample(sample: Sample, dialect: AudioFraming, chunkMs: number, padding: Padding, eos: EosPreference): Promise<PreparedSample> {
  const rate = dialect.sampleRate;
  const audio = await resample(sample.audio, rate);
  const utterance = audio.pcm16 ?? toPcm16(audio.samples);
  const speech = findSpeech(sample, utterance, rate, eos);
  const turn = (silenceBeforeMs: number): PreparedTurn => {
    const [before, after] = [silence(silenceBeforeMs, rate), silence(padding.trailMs, rate)];
    // Unpadded, the chunks are views of the utterance itself.
    const pcm = before.length + after.length === 0 ? utterance : Buffer.concat([before, utterance, after]);
    const offset = pcm16DurationMs(before.length, rate);
    return {
      sampleId: sample.id,
      split: sample.split,
      reference: sample.text,
      ...(sample.language !== undefined ? { language: sample.language } : {}),
      ...(sample.words ? { words: sample.words.map((w) => ({ word: w.word, endMs: offset + w.end * 1000 })) } : {}),
      ...placedTurns(sample.turns, offset),
      ...chunkAudio(pcm, rate, chunkMs, dialect),
      speechStartMs: offset + speech.startMs,
      speechEndMs: offset + speech.endMs,
      eosSource: speech.source,
    };
  };
  const settings = sessionSettings(sample);
  const first = { ...turn(padding.leadMs), ...settings };
  return { first, later: padding.gapMs === 0 ? first : turn(padding.gapMs + padding.leadMs) };
}

/** Splits PCM16 into `chunkMs` chunks (the last may be shorter), each encoded as the dialect's audio frame. */
export function chunkAudio(pcm16: Buffer, sampleRate: number, chunkMs: number, dialect: AudioFraming): { chunks: PreparedChunk[]; audioMs: number } {
  const chunkBytes = Math.max(2, Math.round((sampleRate * chunkMs) / 1000) * 2);
  const chunks: PreparedChunk[] = [];
  for (let offset = 0; offset < pcm16.length; offset += chunkBytes) {
    const end = Math.min(offset + chunkBytes, pcm16.length);
    const span = { startMs: pcm16DurationMs(offset, sampleRate), endMs: pcm16DurationMs(end, sampleRate) };
    chunks.push({ ...framed(dialect, pcm16.subarray(offset, end), span), audioStartMs: span.startMs, audioEndMs: span.endMs });
  }
  return { chunks, audioMs: pcm16DurationMs(pcm16.length, sampleRate) };
}

/**
 * Where the utterance's speech starts and ends, ms into the utterance: from word
 * timings (`label`), else from the energy detector (`vad`), else the whole audio
 * (`audio_end`). A preferred source that a sample lacks falls back down that list.
 */
export function findSpeech(sample: Sample, pcm: Buffer, rate: number, preference: EosPreference): { startMs: number; endMs: number; source: EosSource } {
  const order: EosSource[] = ['label', 'vad', 'audio_end'];
  for (const source of order.slice(preference === 'auto' ? 0 : order.indexOf(preference))) {
    if (source === 'label' && sample.words && sample.words.length > 0) {
      const endMs = Math.min(sample.words[sample.words.length - 1]!.end * 1000, pcm16DurationMs(pcm.length, rate));
      return { startMs: sample.words[0]!.start * 1000, endMs, source };
    }
    if (source === 'vad') {
      const segments = speechSegments(pcm, rate);
      if (segments.length > 0) return { startMs: segments[0]!.startMs, endMs: segments[segments.length - 1]!.endMs, source };
    }
  }
  return { startMs: 0, endMs: pcm16DurationMs(pcm.length, rate), source: 'audio_end' };
}

/** A sample's own session settings; its reference voice as the data URI vLLM-Omni's `ref_audio` takes. */
function sessionSettings(sample: Sample): SessionSettings {
  const voice = sample.referenceAudio;
  const format = voice ? sniffFormat(voice) : null;
  return {
    ...(sample.instructions !== undefined ? { instructions: sample.instructions } : {}),
    ...(voice
      ? {
          referenceAudio: `data:${typeof format === 'string' ? CONTENT_TYPES[format] : 'application/octet-stream'};base64,${Buffer.from(voice.buffer, voice.byteOffset, voice.byteLength).toString('base64')}`,
        }
      : {}),
  };
}

function silence(ms: number, rate: number): Buffer {
  return Buffer.alloc(Math.round((ms * rate) / 1000) * 2);
}
