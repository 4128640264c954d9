import { maximumWeightPairs } from './assignment.js';
import type { Span } from './spans.js';
import { speechBySpeaker, type SpeakerTurn } from './turns.js';

/**
 * Word-level diarization error: the share of recognized words given to the wrong
 * speaker, for servers that label words. A word belongs to the reference speakers
 * talking at its midpoint; hypothesis speakers are paired one to one with reference
 * speakers for the most words right (as the word diarization error rate of El Shafey
 * et al., arXiv:1907.05337, pairs them), and a word is wrong when its speaker's pair is
 * not among them. Words are placed by time, so no transcript alignment is needed.
 */
export interface WordSpeakerErrors {
  /** Words scored: those whose midpoint falls within a reference turn. */
  words: number;
  wrong: number;
  /** Words in no reference turn, not scored (their time is DER's false alarm). */
  outside: number;
  /** Each paired hypothesis speaker's reference speaker. */
  pairs: Record<string, string>;
}

/** A word labelled with its speaker, timed on the recording (the shape of a turn). */
export type SpeakerWord = SpeakerTurn;

/** Whether sorted, disjoint spans hold `atMs` (a binary search). */
function holds(spans: readonly Span[], atMs: number): boolean {
  let [lo, hi] = [0, spans.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (spans[mid]!.endMs <= atMs) lo = mid + 1;
    else hi = mid;
  }
  return lo < spans.length && spans[lo]!.startMs <= atMs;
}

export function wordSpeakerErrors(words: readonly SpeakerWord[], reference: readonly SpeakerTurn[]): WordSpeakerErrors {
  const speech = [...speechBySpeaker(reference)];
  const refSpeakers = speech.map(([speaker]) => speaker);
  const hypSpeakers = [...new Set(words.map((w) => w.speaker))];
  const rightIfPaired = refSpeakers.map(() => hypSpeakers.map(() => 0));
  let scored = 0;
  for (const word of words) {
    const midMs = (word.startMs + word.endMs) / 2;
    const talking = speech.flatMap(([, spans], r) => (holds(spans, midMs) ? [r] : []));
    if (talking.length === 0) continue;
    scored++;
    const h = hypSpeakers.indexOf(word.speaker);
    for (const r of talking) rightIfPaired[r]![h]!++;
  }
  // Pairing is one to one, so a word said in overlap is counted right at most once.
  const pairs = maximumWeightPairs(rightIfPaired, hypSpeakers.length);
  const right = pairs.reduce((n, [r, h]) => n + rightIfPaired[r]![h]!, 0);
  return {
    words: scored,
    wrong: scored - right,
    outside: words.length - scored,
    pairs: Object.fromEntries(pairs.map(([r, h]) => [hypSpeakers[h]!, refSpeakers[r]!])),
  };
}

/** Wrong words over scored words; null with none scored. */
export const wordSpeakerErrorRate = (errors: Pick<WordSpeakerErrors, 'words' | 'wrong'>): number | null =>
  errors.words === 0 ? null : errors.wrong / errors.words;
