/**
 * Word error rate: a named, versioned normalizer and a word-level alignment.
 *
 * `voxbench-basic-1` folds Unicode compatibility forms (NFKC), lowercases, turns every
 * character that is not a letter, digit or apostrophe into a space, drops
 * apostrophes that do not sit inside a word, and splits on whitespace. It does not
 * spell out numbers or map British to American spelling: compare WER only between
 * runs that name the same normalizer.
 */
export const NORMALIZER = 'voxbench-basic-1';

export function normalizeWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .replace(/(^|\s)'+|'+(?=\s|$)/g, '$1')
    .split(/\s+/)
    .filter(Boolean);
}

/** Edit counts of the hypothesis against the reference, after normalization. */
export interface WordErrors {
  substitutions: number;
  deletions: number;
  insertions: number;
  /** Words in the reference. */
  words: number;
}

/** Minimum-edit alignment (Levenshtein over words); ties prefer substitutions, as sclite does. */
export function wordErrors(reference: string, hypothesis: string): WordErrors {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  // cost[j] and ops[j] hold the best alignment of ref[0..i) with hyp[0..j) as i advances.
  type Ops = { s: number; d: number; i: number };
  let prev: Ops[] = Array.from({ length: hyp.length + 1 }, (_, j) => ({ s: 0, d: 0, i: j }));
  const total = (o: Ops): number => o.s + o.d + o.i;
  for (let r = 1; r <= ref.length; r++) {
    const row: Ops[] = [{ s: 0, d: r, i: 0 }];
    for (let h = 1; h <= hyp.length; h++) {
      const diagonal = prev[h - 1]!;
      const match = ref[r - 1] === hyp[h - 1];
      const candidates: Ops[] = [
        match ? diagonal : { ...diagonal, s: diagonal.s + 1 },
        { ...prev[h]!, d: prev[h]!.d + 1 },
        { ...row[h - 1]!, i: row[h - 1]!.i + 1 },
      ];
      row.push(candidates.reduce((best, c) => (total(c) < total(best) ? c : best)));
    }
    prev = row;
  }
  const best = prev[hyp.length]!;
  return { substitutions: best.s, deletions: best.d, insertions: best.i, words: ref.length };
}

/** (S + D + I) / N; null for an empty reference. */
export function errorRate(errors: WordErrors): number | null {
  return errors.words === 0 ? null : (errors.substitutions + errors.deletions + errors.insertions) / errors.words;
}
