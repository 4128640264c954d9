import { createHash } from 'node:crypto';
import type { Sample } from '../data/dataset.js';
import { toPcm16 } from '../audio/pcm.js';
import { resample } from '../audio/resample.js';

/** Audio the simulated server knows: its PCM16 and when each word of its transcript ends. */
export interface Reference {
  id: string;
  pcm: Buffer;
  words: Array<{ text: string; endMs: number }>;
}

/** Bytes of audio hashed to look a reference up (100 ms at 16 kHz). */
const KEY_BYTES = 3200;
const FRAME_MS = 20;
/** RMS above this (about -40 dBFS) counts as speech for placeholder words. */
const SPEECH_RMS = 0.01;
const WORD_MAX_MS = 400;
const WORD_MIN_MS = 100;
export const PLACEHOLDER_WORD = 'speech';

export async function buildReferences(samples: readonly Sample[], sampleRate: number): Promise<Reference[]> {
  return Promise.all(
    samples.map(async (sample) => {
      const audio = await resample(sample.audio, sampleRate);
      const durationMs = (audio.samples.length / sampleRate) * 1000;
      return { id: sample.id, pcm: toPcm16(audio.samples), words: wordEnds(sample, durationMs) };
    }),
  );
}

/**
 * Word end times: from word timings when present (shown with the transcript's own
 * spelling when the word counts agree), else spread evenly over the audio.
 */
function wordEnds(sample: Sample, durationMs: number): Reference['words'] {
  const tokens = sample.text?.split(/\s+/).filter(Boolean) ?? [];
  if (sample.words) {
    const useTokens = tokens.length === sample.words.length;
    return sample.words.map((w, i) => ({ text: useTokens ? tokens[i]! : w.word, endMs: w.end * 1000 }));
  }
  return tokens.map((text, i) => ({ text, endMs: ((i + 1) / tokens.length) * durationMs }));
}

export class ReferenceIndex {
  private readonly byKey = new Map<string, Reference[]>();

  constructor(references: readonly Reference[]) {
    for (const ref of references) {
      if (ref.pcm.length < KEY_BYTES) continue;
      const key = hashKey(ref.pcm);
      this.byKey.set(key, [...(this.byKey.get(key) ?? []), ref]);
    }
  }

  candidates(prefix: Buffer): Reference[] {
    return this.byKey.get(hashKey(prefix)) ?? [];
  }
}

function hashKey(pcm: Buffer): string {
  return createHash('sha1').update(pcm.subarray(0, KEY_BYTES)).digest('base64');
}

/**
 * Follows one utterance as its audio arrives and says which words have become
 * audible. Audio that matches a reference byte for byte yields the reference's words
 * at their timings; any other audio yields placeholder words at the pace of its
 * speech energy.
 */
export class StreamRecognizer {
  private readonly received: Buffer[] = [];
  private receivedBytes = 0;
  private candidates: Reference[] | undefined;
  private emittedWords = 0;
  private energyOffset = 0;
  private voicedMs = 0;

  constructor(
    private readonly index: ReferenceIndex,
    private readonly sampleRate: number,
  ) {}

  get receivedMs(): number {
    return (this.receivedBytes / 2 / this.sampleRate) * 1000;
  }

  /** Which reference is being heard, if any. */
  get matched(): string | undefined {
    return this.candidates?.[0]?.id;
  }

  /** Takes a chunk of PCM16 and returns the words it completed. */
  feed(chunk: Buffer): string[] {
    const offset = this.receivedBytes;
    this.receivedBytes += chunk.length;
    if (this.candidates === undefined) {
      this.received.push(chunk);
      if (this.receivedBytes < KEY_BYTES) return [];
      const heard = Buffer.concat(this.received);
      this.candidates = this.index.candidates(heard).filter((ref) => matchesAt(ref, heard, 0));
      this.received.length = 0;
      if (this.candidates.length === 0) this.received.push(heard);
    } else if (this.candidates.length > 0) {
      this.candidates = this.candidates.filter((ref) => matchesAt(ref, chunk, offset));
      // Audio that stops matching mid-way is treated as unknown from here on.
      if (this.candidates.length === 0) this.received.push(chunk);
    } else {
      this.received.push(chunk);
    }
    return this.candidates.length > 0 ? this.referenceWords(this.candidates[0]!) : this.energyWords(false);
  }

  /** The end of the audio: returns every word not yet emitted. */
  flush(): string[] {
    const ref = this.candidates?.[0];
    if (!ref) return this.energyWords(true);
    const rest = ref.words.slice(this.emittedWords).map((w) => w.text);
    this.emittedWords = ref.words.length;
    return rest;
  }

  private referenceWords(ref: Reference): string[] {
    const heardMs = this.receivedMs;
    const words: string[] = [];
    while (this.emittedWords < ref.words.length && ref.words[this.emittedWords]!.endMs <= heardMs) {
      words.push(ref.words[this.emittedWords++]!.text);
    }
    return words;
  }

  private energyWords(atEnd: boolean): string[] {
    const frameBytes = Math.round((this.sampleRate * FRAME_MS) / 1000) * 2;
    const heard = this.received.length === 1 ? this.received[0]! : Buffer.concat(this.received);
    const words: string[] = [];
    for (; this.energyOffset + frameBytes <= heard.length; this.energyOffset += frameBytes) {
      if (rms(heard, this.energyOffset, frameBytes) >= SPEECH_RMS) {
        this.voicedMs += FRAME_MS;
        if (this.voicedMs >= WORD_MAX_MS) {
          words.push(PLACEHOLDER_WORD);
          this.voicedMs = 0;
        }
      } else {
        if (this.voicedMs >= WORD_MIN_MS) words.push(PLACEHOLDER_WORD);
        this.voicedMs = 0;
      }
    }
    if (atEnd && this.voicedMs >= WORD_MIN_MS) {
      words.push(PLACEHOLDER_WORD);
      this.voicedMs = 0;
    }
    // Keep only the unread tail, so memory and work per chunk stay constant.
    this.received.length = 0;
    this.received.push(heard.subarray(this.energyOffset));
    this.energyOffset = 0;
    return words;
  }
}

function matchesAt(ref: Reference, audio: Buffer, offset: number): boolean {
  if (offset + audio.length > ref.pcm.length) return false;
  return ref.pcm.compare(audio, 0, audio.length, offset, offset + audio.length) === 0;
}

function rms(pcm: Buffer, offset: number, bytes: number): number {
  let sum = 0;
  for (let i = offset; i < offset + bytes; i += 2) {
    const s = pcm.readInt16LE(i) / 32768;
    sum += s * s;
  }
  return Math.sqrt(sum / (bytes / 2));
}
