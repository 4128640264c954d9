import { seededRandom } from '../../util/random.js';
import type { HeardWord } from './recognizer.js';

/** How wrong the simulated server's speaker labels are. */
export interface SpeakerErrors {
  /** Share of words given another speaker's label, drawn per word from a generator seeded with the server's seed. */
  confusion: number;
  /** How late the server notices a change of speaker, ms: words whose midpoint is within it of the change keep the previous label. */
  boundaryMs: number;
  /** Share of words first shown (in partials) with another speaker's label, revised to their own label when final. */
  relabel: number;
  /** Share of words left without a speaker (each dialect writes none its own way: no field, or `UU`). */
  unlabelled: number;
  /** ms added to a word's start and end in partials: the final gives its own times, as servers re-time words when they settle. */
  retimeMs: number;
}

export const DEFAULT_SPEAKER_ERRORS: SpeakerErrors = { confusion: 0, boundaryMs: 0, relabel: 0, unlabelled: 0, retimeMs: 0 };

/** A word's labels: its final one, and the one partials show first (the same unless relabelled); none when left unlabelled. */
export interface WordLabels {
  label?: number;
  shown?: number;
}

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

  /** The word's speaker number, or undefined without a reference speaker or when left unlabelled. */
  label(word: HeardWord): number | undefined {
    return this.labels(word).label;
  }

  /**
   * The word's final label and the one its partials show first. Each error draws from the
   * seeded generator only when it is asked for, so a seed gives the same labels whatever
   * other errors are off.
   */
  labels(word: HeardWord): WordLabels {
    const label = this.finalLabel(word);
    if (label === undefined || (this.errors.unlabelled > 0 && this.random() < this.errors.unlabelled)) return {};
    if (this.errors.relabel > 0 && this.random() < this.errors.relabel) return { label, shown: this.another(label) ?? label };
    return { label, shown: label };
  }

  private finalLabel(word: HeardWord): number | undefined {
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
    return this.another(heard);
  }

  /** Another speaker heard in this session, any one alike; none while only one is known. */
  private another(heard: number): number | undefined {
    const others = [...this.numbers.values()].filter((n) => n !== heard);
    return others.length === 0 ? undefined : others[Math.floor(this.random() * others.length)]!;
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
