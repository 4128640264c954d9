import { seededRandom } from '../../util/random.js';
import type { HeardWord } from './recognizer.js';

/** How wrong the simulated server's speaker labels are. */
export interface SpeakerErrors {
  /** Share of words given another speaker's label, drawn per word from a generator seeded with the server's seed. */
  confusion: number;
  /** How late the server notices a change of speaker, ms: words whose midpoint is within it of the change keep the previous label. */
  boundaryMs: number;
}

export const DEFAULT_SPEAKER_ERRORS: SpeakerErrors = { confusion: 0, boundaryMs: 0 };

/**
 * One session's speaker labelling, as a diarizing server does it: each reference speaker
 * gets a number in the order first heard (0, 1, …; each dialect writes it its own way),
 * and the errors are applied to the words in the order they are heard. A word with no
 * reference speaker (unknown audio) gets no label.
 */
export class SpeakerLabeller {
  private readonly numbers = new Map<string, number>();
  private readonly random: () => number;
  /** The speaker the labels follow, and where the true speaker last changed (stream ms). */
  private current: { speaker: string; changedAtMs: number; label: string } | undefined;

  constructor(
    private readonly errors: SpeakerErrors,
    seed: number,
  ) {
    this.random = seededRandom(seed);
  }

  /** The word's speaker number, or undefined without a reference speaker. */
  label(word: HeardWord): number | undefined {
    const speaker = word.speaker;
    if (speaker === undefined) return undefined;
    const midMs = ((word.startMs ?? word.endMs) + word.endMs) / 2;
    if (this.current?.speaker !== speaker) {
      // The change is noticed `boundaryMs` after the new speaker's first word starts.
      this.current = { speaker, changedAtMs: word.startMs ?? word.endMs, label: this.current?.label ?? speaker };
    }
    if (midMs >= this.current.changedAtMs + this.errors.boundaryMs) this.current.label = speaker;
    const heard = this.numberOf(this.current.label);
    if (this.numbers.size < 2 || this.random() >= this.errors.confusion) return heard;
    // Confused: another speaker heard in this session, any one alike.
    const others = [...this.numbers.values()].filter((n) => n !== heard);
    return others[Math.floor(this.random() * others.length)]!;
  }

  /** The number of the word's reference speaker, free of the errors (what a later revision says), or undefined without one. */
  truth(word: HeardWord): number | undefined {
    return word.speaker === undefined ? undefined : this.numberOf(word.speaker);
  }

  private numberOf(speaker: string): number {
    let n = this.numbers.get(speaker);
    if (n === undefined) this.numbers.set(speaker, (n = this.numbers.size));
    return n;
  }
}
