import type { SessionView } from '../views/session-view.js';
import type { WordErrors } from './wer.js';

/** Word errors summed over every input with a reference and a final transcript: the corpus WER's numerator and denominator. */
export function corpusErrors(views: readonly SessionView[]): WordErrors & { inputs: number } {
  const total = { substitutions: 0, deletions: 0, insertions: 0, words: 0, inputs: 0 };
  for (const view of views) {
    for (const input of view.inputs) {
      const errors = input.wordErrors();
      if (!errors) continue;
      total.inputs++;
      total.substitutions += errors.substitutions;
      total.deletions += errors.deletions;
      total.insertions += errors.insertions;
      total.words += errors.words;
    }
  }
  return total;
}
