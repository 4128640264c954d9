/**
 * Speaker stability of a stream: a streaming server may label a word, then relabel it
 * as its partials are revised. Scores take the final labels; this counts how often a
 * word's speaker changed after the word was first emitted, which no offline scorer can
 * see.
 */

/** One emission of a word with a speaker, in the order received; `word` identifies the word across revisions (its position, or its start time). */
export interface WordEmission {
  word: string | number;
  speaker: string;
}

export interface SpeakerStability {
  /** Distinct words emitted. */
  words: number;
  /** Words whose speaker changed at least once after they were first emitted. */
  relabelledWords: number;
  /** Every change of a word's speaker (A, B, A is two). */
  relabels: number;
}

export function speakerStability(emissions: readonly WordEmission[]): SpeakerStability {
  const last = new Map<string | number, string>();
  const relabelled = new Set<string | number>();
  let relabels = 0;
  for (const { word, speaker } of emissions) {
    const before = last.get(word);
    if (before !== undefined && before !== speaker) {
      relabels++;
      relabelled.add(word);
    }
    last.set(word, speaker);
  }
  return { words: last.size, relabelledWords: relabelled.size, relabels };
}

/** The share of words relabelled after their first emission; null without words. */
export const relabelledShare = (stability: Pick<SpeakerStability, 'words' | 'relabelledWords'>): number | null =>
  stability.words === 0 ? null : stability.relabelledWords / stability.words;
