import { createHash } from 'node:crypto';

/**
 * A seeded shuffle: items ordered by sha256(seed, id). The same seed gives the same
 * order, and a sample keeps its place relative to the others when samples are added
 * to or removed from the dataset.
 */
export function seededOrder<T extends { id: string }>(items: T[], seed: number): T[] {
  const rank = new Map(items.map((item) => [item, createHash('sha256').update(`${seed}\0${item.id}`).digest('hex')]));
  return [...items].sort((a, b) => (rank.get(a)! < rank.get(b)! ? -1 : 1));
}

/** `wanted` matches a label of the same language: `en` matches `en`, `EN`, `en-US` and `en_gb`; `en-US` only `en-US`. */
export function languageMatches(label: string | undefined, wanted: string): boolean {
  if (label === undefined) return false;
  const [l, w] = [label.toLowerCase().replace('_', '-'), wanted.toLowerCase().replace('_', '-')];
  return l === w || (!w.includes('-') && l.startsWith(`${w}-`));
}
