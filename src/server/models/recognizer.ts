import { createHash } from 'node:crypto';
import { FRAME_MS, DEFAULT_SPEECH_RMS, pcm16Rms } from '../../audio/energy.js';
import { toPcm16 } from '../../audio/pcm.js';
import { resample } from '../../audio/resample.js';
import type { Sample } from '../../data/dataset.js';
import { ToneWord } from './speech-tones.js';

/** Audio the simulated server knows: its PCM16, where its sound starts, and when each word ends. */
export interface Reference {
  id: string;
  pcm: Buffer;
  /** Byte offset of the first non-zero sample: where a reference is recognized. */
  anchor: number;
  words: Array<{ text: string; startMs: number; endMs: number; speaker?: string }>;
}

/**
 * A word the server has heard, with its end as a position in the session's audio stream
 * (ms); a known reference's words also carry their start and their reference speaker.
 */
export interface HeardWord {
  text: string;
  endMs: number;
  startMs?: number;
  speaker?: string;
}

/** Bytes after the anchor that identify a reference (64 samples). */
const ANCHOR_BYTES = 128;
const WORD_MAX_MS = 400;
const WORD_MIN_MS = 100;
const TONE_WINDOW_MS = 40;
export const PLACEHOLDER_WORD = 'speech';

export async function buildReferences(samples: readonly Sample[], sampleRate: number): Promise<Reference[]> {
  return Promise.all(
    samples.map(async (sample) => {
      const audio = await resample(sample.audio, sampleRate);
      const pcm = toPcm16(audio.samples);
      let anchor = 0;
      while (anchor < pcm.length && pcm.readInt16LE(anchor) === 0) anchor += 2;
      return { id: sample.id, pcm, anchor, words: wordEnds(sample, (audio.samples.length / sampleRate) * 1000) };
    }),
  );
}

/**
 * Word times: from word timings when present (shown with the transcript's own spelling
 * when the word counts agree), else spread evenly over the audio. A word's speaker is
 * its timing's, else the reference turn at its midpoint, where the sample has turns.
 */
function wordEnds(sample: Sample, durationMs: number): Reference['words'] {
  const tokens = sample.text?.split(/\s+/).filter(Boolean) ?? [];
  const useTokens = sample.words !== undefined && tokens.length === sample.words.length;
  const timed = sample.words
    ? sample.words.map((w, i) => ({ text: useTokens ? tokens[i]! : w.word, startMs: w.start * 1000, endMs: w.end * 1000, speaker: w.speaker }))
    : tokens.map((text, i) => ({ text, startMs: (i / tokens.length) * durationMs, endMs: ((i + 1) / tokens.length) * durationMs, speaker: undefined }));
  return timed.map(({ speaker, ...w }) => {
    const who = speaker ?? sample.turns?.find((t) => t.startMs <= (w.startMs + w.endMs) / 2 && (w.startMs + w.endMs) / 2 < t.endMs)?.speaker;
    return who !== undefined ? { ...w, speaker: who } : w;
  });
}

export class ReferenceIndex {
  private readonly byKey = new Map<string, Reference[]>();

  constructor(references: readonly Reference[]) {
    for (const ref of references) {
      if (ref.anchor + ANCHOR_BYTES > ref.pcm.length) continue;
      const key = hashKey(ref.pcm, ref.anchor);
      this.byKey.set(key, [...(this.byKey.get(key) ?? []), ref]);
    }
  }

  candidates(audio: Buffer, offset: number): Reference[] {
    return this.byKey.get(hashKey(audio, offset)) ?? [];
  }
}

function hashKey(pcm: Buffer, offset: number): string {
  return createHash('sha1')
    .update(pcm.subarray(offset, offset + ANCHOR_BYTES))
    .digest('base64');
}

interface Match {
  ref: Reference;
  /** Stream byte where the reference's first byte sits. */
  start: number;
  /** Stream bytes verified against the reference so far. */
  verified: number;
  nextWord: number;
}

/**
 * Follows a session's audio stream as it arrives and reports the words it completes.
 * A known reference is recognized wherever it starts after silence (at its first
 * non-zero sample) and, while the audio keeps matching it byte for byte, yields its
 * words at their timings. Audio of the simulated speech server's voice
 * (speech-synth.ts) yields the words it spells, one per voiced run. Any other audio
 * yields placeholder words at the pace of its speech energy.
 */
export class StreamRecognizer {
  /** Unconsumed stream bytes, starting at stream byte `bufStart`. */
  private buf: Buffer = Buffer.alloc(0);
  private bufStart = 0;
  /** Next stream byte to scan for a reference anchor. */
  private cursor = 0;
  private previousWasZero = true;
  private match: Match | undefined;
  /** Next stream byte for the energy detector; it skips recognized spans. */
  private energyPos = 0;
  private voicedMs = 0;
  private lastVoicedEnd = 0;
  /** The voiced run in progress is the simulated speech server's voice, read back tone by tone. */
  private toneWord: ToneWord | undefined;
  private readonly frameBytes: number;

  constructor(
    private readonly index: ReferenceIndex,
    private readonly sampleRate: number,
  ) {
    this.frameBytes = Math.round((sampleRate * FRAME_MS) / 1000) * 2;
  }

  /** Stream audio received so far, ms. */
  get receivedMs(): number {
    return this.ms(this.bufStart + this.buf.length);
  }

  feed(chunk: Buffer): HeardWord[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    return this.advance(false);
  }

  /** The end of the stream: returns every word still pending. */
  flush(): HeardWord[] {
    return this.advance(true);
  }

  private advance(atEnd: boolean): HeardWord[] {
    const words: HeardWord[] = [];
    const end = this.bufStart + this.buf.length;
    for (;;) {
      const m = this.match;
      if (m) {
        const refEnd = m.start + m.ref.pcm.length;
        const upto = Math.min(end, refEnd);
        if (upto > m.verified && !this.matches(m, upto)) {
          // Audio that stops matching is unknown audio from here on.
          this.match = undefined;
          this.cursor = this.energyPos = m.verified;
          this.previousWasZero = false;
          continue;
        }
        m.verified = upto;
        const done = m.verified === refEnd;
        while (m.nextWord < m.ref.words.length) {
          const word = m.ref.words[m.nextWord]!;
          const endByte = m.start + Math.round((word.endMs / 1000) * this.sampleRate) * 2;
          if (!done && endByte > m.verified) break;
          const startByte = m.start + Math.round((word.startMs / 1000) * this.sampleRate) * 2;
          const speaker = word.speaker !== undefined ? { speaker: word.speaker } : {};
          words.push({ text: word.text, startMs: this.ms(Math.min(startByte, refEnd)), endMs: this.ms(Math.min(endByte, refEnd)), ...speaker });
          m.nextWord++;
        }
        if (!done) break;
        this.match = undefined;
        this.cursor = this.energyPos = refEnd;
        this.previousWasZero = m.ref.pcm.readInt16LE(m.ref.pcm.length - 2) === 0;
        continue;
      }
      if (!this.scanForAnchor(end, atEnd, words)) {
        this.energy(words, this.cursor, atEnd);
        break;
      }
    }
    this.trim();
    return words;
  }

  /** Scans unknown audio for a reference; true when one starts (and `match` is set). */
  private scanForAnchor(end: number, atEnd: boolean, words: HeardWord[]): boolean {
    for (let p = this.cursor; p + 2 <= end; p += 2) {
      const sample = this.buf.readInt16LE(p - this.bufStart);
      if (sample !== 0 && this.previousWasZero) {
        if (p + ANCHOR_BYTES > end && !atEnd) {
          this.cursor = p; // wait for enough audio to identify it
          return false;
        }
        const ref = p + ANCHOR_BYTES <= end ? this.identify(p, end) : undefined;
        if (ref) {
          this.cursor = p;
          this.energy(words, p, false);
          this.match = { ref, start: p - ref.anchor, verified: p, nextWord: 0 };
          this.energyPos = p - ref.anchor + ref.pcm.length;
          this.voicedMs = 0;
          this.toneWord = undefined;
          return true;
        }
      }
      this.previousWasZero = sample === 0;
      this.cursor = p + 2;
    }
    return false;
  }

  private identify(p: number, end: number): Reference | undefined {
    const local = p - this.bufStart;
    return this.index.candidates(this.buf, local).find((ref) => {
      const length = Math.min(end - p, ref.pcm.length - ref.anchor);
      return p >= ref.anchor && this.buf.compare(ref.pcm, ref.anchor, ref.anchor + length, local, local + length) === 0;
    });
  }

  private matches(m: Match, upto: number): boolean {
    const refOffset = m.verified - m.start;
    const local = m.verified - this.bufStart;
    return this.buf.compare(m.ref.pcm, refOffset, refOffset + (upto - m.verified), local, local + (upto - m.verified)) === 0;
  }

  /** Words from speech energy, for frames of unknown audio before `limit`: the simulated voice's, else placeholders. */
  private energy(words: HeardWord[], limit: number, atEnd: boolean): void {
    const frameSamples = this.frameBytes / 2;
    for (; this.energyPos + this.frameBytes <= limit; this.energyPos += this.frameBytes) {
      const frameEnd = this.energyPos + this.frameBytes;
      const local = this.energyPos - this.bufStart;
      if (pcm16Rms(this.buf, local, frameSamples) >= DEFAULT_SPEECH_RMS) {
        // A run is the simulated voice when its opening tone is heard within its first TONE_WINDOW_MS (its first frame may hold only a fade).
        if (this.voicedMs === 0) this.toneWord = new ToneWord(this.sampleRate, DEFAULT_SPEECH_RMS);
        this.toneWord?.add(this.buf, local, frameSamples);
        this.voicedMs += FRAME_MS;
        this.lastVoicedEnd = frameEnd;
        if (this.toneWord && this.voicedMs >= TONE_WINDOW_MS && !this.toneWord.opened) this.toneWord = undefined;
        if (!this.toneWord && this.voicedMs >= WORD_MAX_MS) this.placeholder(words);
      } else if (this.voicedMs > 0) {
        if (this.toneWord || this.voicedMs >= WORD_MIN_MS) this.placeholder(words);
        this.voicedMs = 0;
      }
    }
    if (atEnd && (this.toneWord || this.voicedMs >= WORD_MIN_MS)) this.placeholder(words);
  }

  /** Ends a word: the one the simulated voice spelled, else a placeholder. */
  private placeholder(words: HeardWord[]): void {
    words.push({ text: this.toneWord?.word() ?? PLACEHOLDER_WORD, endMs: this.ms(this.lastVoicedEnd) });
    this.toneWord = undefined;
    this.voicedMs = 0;
  }

  /** Drops bytes nothing will read again, so memory stays bounded on long streams. */
  private trim(): void {
    const keepFrom = Math.min(this.match ? this.match.verified : this.cursor, this.match ? Infinity : this.energyPos);
    const drop = Math.min(keepFrom, this.bufStart + this.buf.length) - this.bufStart;
    if (drop > 0) {
      this.buf = this.buf.subarray(drop);
      this.bufStart += drop;
    }
  }

  private ms(streamBytes: number): number {
    return (streamBytes / 2 / this.sampleRate) * 1000;
  }
}
