/**
 * Word error rate: a named, versioned normalizer and a word-level alignment.
 *
 * `voxbench-basic-2` folds Unicode compatibility forms (NFKC), lowercases, reads
 * typographic apostrophes (’ ʼ) as ', turns every
 * character that is not a letter, digit or apostrophe into a space, drops
 * apostrophes that do not sit inside a word, and splits on whitespace. It does not
 * spell out numbers or map British to American spelling: compare WER only between
 * runs that name the same normalizer.
 */
export const NORMALIZER = 'voxbench-basic-2';

export function normalizeWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2019\u02bc]/g, "'")
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .replace(/(^|\s)'+|'+(?=\s|$)/g, '$1')
    .split(/\s+/)
    .filter(Boolean);
}

/** Edit counts of a hypothesis against a reference. */
export interface WordErrors {
  substitutions: number;
  deletions: number;
  insertions: number;
  /** Words in the reference. */
  words: number;
}

/** One step of an alignment: a reference word matched or substituted by a hypothesis word, deleted, or a hypothesis word inserted. */
export type AlignedPair =
  | { op: 'match' | 'substitution'; ref: number; hyp: number }
  | { op: 'deletion'; ref: number }
  | { op: 'insertion'; hyp: number };

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
  for (let r = ref.length, h = hyp.length; r > 0 || h > 0; ) {
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

/** Edit counts of the hypothesis against the reference, after normalization. */
export function wordErrors(reference: string, hypothesis: string): WordErrors {
  const ref = normalizeWords(reference);
  const alignment = alignWords(ref, normalizeWords(hypothesis));
  const count = (op: AlignedPair['op']): number => alignment.filter((p) => p.op === op).length;
  return { substitutions: count('substitution'), deletions: count('deletion'), insertions: count('insertion'), words: ref.length };
}

/** (S + D + I) / N; null for an empty reference. */
export function errorRate(errors: WordErrors): number | null {
  return errors.words === 0 ? null : (errors.substitutions + errors.deletions + errors.insertions) / errors.words;
}
