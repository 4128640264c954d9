/**
 * Word and character error rates: a transcript and its reference normalized by a named,
 * versioned normalizer (`normalizers/`), then aligned word by word (and character by
 * character for CER).
 */
import type { Normalizer } from './normalizers/index.js';

/** Substitutions, deletions and insertions of a hypothesis against a reference. */
export interface EditCounts {
  substitutions: number;
  deletions: number;
  insertions: number;
}

export interface WordErrors extends EditCounts {
  /** Words in the reference. */
  words: number;
}

export interface CharErrors extends EditCounts {
  /** Characters in the reference, the spaces between its words included (as jiwer counts them). */
  chars: number;
}

/** A transcript scored against its reference: the normalizer's id, word and character edits. */
export interface TranscriptErrors {
  normalizer: string;
  words: WordErrors;
  chars: CharErrors;
}

/** One step of an alignment: a reference word matched or substituted by a hypothesis word, deleted, or a hypothesis word inserted. */
export type AlignedPair = { op: 'match' | 'substitution'; ref: number; hyp: number } | { op: 'deletion'; ref: number } | { op: 'insertion'; hyp: number };

/** Minimum-edit alignment of two word sequences (Levenshtein over words); ties prefer the diagonal, as sclite does. */
export function alignWords(ref: readonly string[], hyp: readonly string[]): AlignedPair[] {
  const width = hyp.length + 1;
  const cost = new Uint32Array((ref.length + 1) * width);
  for (let h = 0; h <= hyp.length; h++) cost[h] = h;
  for (let r = 1; r <= ref.length; r++) {
    cost[r * width] = r;
    for (let h = 1; h <= hyp.length; h++) {
      const diagonal = cost[(r - 1) * width + h - 1]! + (ref[r - 1] === hyp[h - 1] ? 0 : 1);
      cost[r * width + h] = Math.min(diagonal, cost[(r - 1) * width + h]! + 1, cost[r * width + h - 1]! + 1);
    }
  }
  const pairs: AlignedPair[] = [];
  for (let r = ref.length, h = hyp.length; r > 0 || h > 0;) {
    const here = cost[r * width + h]!;
    if (r > 0 && h > 0 && here === cost[(r - 1) * width + h - 1]! + (ref[r - 1] === hyp[h - 1] ? 0 : 1)) {
      pairs.push({ op: ref[r - 1] === hyp[h - 1] ? 'match' : 'substitution', ref: --r, hyp: --h });
    } else if (r > 0 && here === cost[(r - 1) * width + h]! + 1) {
      pairs.push({ op: 'deletion', ref: --r });
    } else {
      pairs.push({ op: 'insertion', hyp: --h });
    }
  }
  return pairs.reverse();
}

/** Edit counts of an alignment of words. */
function wordEdits(ref: readonly string[], hyp: readonly string[]): WordErrors {
  const counts = { substitutions: 0, deletions: 0, insertions: 0, words: ref.length };
  for (const { op } of alignWords(ref, hyp)) {
    if (op === 'substitution') counts.substitutions++;
    else if (op === 'deletion') counts.deletions++;
    else if (op === 'insertion') counts.insertions++;
  }
  return counts;
}

/**
 * Edit counts of a minimum-edit alignment, two rows at a time: a long recording has
 * tens of thousands of characters, too many for the full table `alignWords` keeps to
 * trace pairs (time stays quadratic in the characters). Ties prefer a substitution,
 * then a deletion.
 */
function charEdits(ref: Uint32Array, hyp: Uint32Array): CharErrors {
  const width = hyp.length + 1;
  // Two rows of each: the cost of a cell, and the substitutions and deletions on its path (insertions are the rest of the cost).
  let [cost, s, d] = [new Uint32Array(width), new Uint32Array(width), new Uint32Array(width)];
  let [cost1, s1, d1] = [new Uint32Array(width), new Uint32Array(width), new Uint32Array(width)];
  for (let h = 0; h <= hyp.length; h++) cost[h] = h;
  for (let r = 1; r <= ref.length; r++) {
    cost1[0] = d1[0] = r;
    s1[0] = 0;
    const char = ref[r - 1];
    for (let h = 1; h <= hyp.length; h++) {
      const substituted = char === hyp[h - 1] ? 0 : 1;
      const diagonal = cost[h - 1]! + substituted;
      const up = cost[h]! + 1;
      const left = cost1[h - 1]! + 1;
      if (diagonal <= up && diagonal <= left) {
        cost1[h] = diagonal;
        s1[h] = s[h - 1]! + substituted;
        d1[h] = d[h - 1]!;
      } else if (up <= left) {
        cost1[h] = up;
        s1[h] = s[h]!;
        d1[h] = d[h]! + 1;
      } else {
        cost1[h] = left;
        s1[h] = s1[h - 1]!;
        d1[h] = d1[h - 1]!;
      }
    }
    [cost, s, d, cost1, s1, d1] = [cost1, s1, d1, cost, s, d];
  }
  const end = hyp.length;
  return { substitutions: s[end]!, deletions: d[end]!, insertions: cost[end]! - s[end]! - d[end]!, chars: ref.length };
}

/** The characters (code points) of normalized words, one space between words. */
const characters = (words: readonly string[]): Uint32Array => Uint32Array.from(words.join(' '), (c) => c.codePointAt(0)!);

/** Word and character edits of the hypothesis against the reference, after `normalizer`. */
export function transcriptErrors(reference: string, hypothesis: string, normalizer: Normalizer): TranscriptErrors {
  const [ref, hyp] = [normalizer.normalize(reference), normalizer.normalize(hypothesis)];
  return { normalizer: normalizer.id, words: wordEdits(ref, hyp), chars: charEdits(characters(ref), characters(hyp)) };
}

/** (S + D + I) / N, over reference words or characters; null for an empty reference. */
export function errorRate(errors: WordErrors | CharErrors): number | null {
  const length = 'words' in errors ? errors.words : errors.chars;
  return length === 0 ? null : (errors.substitutions + errors.deletions + errors.insertions) / length;
}
