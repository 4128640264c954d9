/**
 * Time on one recording as sorted, disjoint spans (ms): the algebra scoring needs
 * (union, intersection, difference), exact on the turns' own boundaries, no frames.
 */
export interface Span {
  startMs: number;
  endMs: number;
}

/** Total length of disjoint spans. */
export const lengthOf = (spans: readonly Span[]): number => spans.reduce((n, s) => n + (s.endMs - s.startMs), 0);

/** The union of any spans as sorted, disjoint spans; spans that touch join, empty ones are dropped. */
export function union(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((s) => s.endMs > s.startMs).sort((a, b) => a.startMs - b.startMs);
  const out: Span[] = [];
  for (const { startMs, endMs } of sorted) {
    const last = out[out.length - 1];
    if (last && startMs <= last.endMs) last.endMs = Math.max(last.endMs, endMs);
    else out.push({ startMs, endMs });
  }
  return out;
}

/** The intersection of two sets of sorted, disjoint spans. */
export function intersect(a: readonly Span[], b: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const startMs = Math.max(a[i]!.startMs, b[j]!.startMs);
    const endMs = Math.min(a[i]!.endMs, b[j]!.endMs);
    if (endMs > startMs) out.push({ startMs, endMs });
    if (a[i]!.endMs < b[j]!.endMs) i++;
    else j++;
  }
  return out;
}

/** `a` less `b`, both sorted and disjoint. */
export function subtract(a: readonly Span[], b: readonly Span[]): Span[] {
  const out: Span[] = [];
  let j = 0;
  for (const span of a) {
    let startMs = span.startMs;
    while (j < b.length && b[j]!.endMs <= startMs) j++;
    for (let k = j; k < b.length && b[k]!.startMs < span.endMs; k++) {
      if (b[k]!.startMs > startMs) out.push({ startMs, endMs: b[k]!.startMs });
      startMs = Math.max(startMs, b[k]!.endMs);
    }
    if (span.endMs > startMs) out.push({ startMs, endMs: span.endMs });
  }
  return out;
}

/** Where at least `count` of the given sets of disjoint spans hold at once (a sweep over their boundaries). */
export function heldByAtLeast(sets: readonly (readonly Span[])[], count: number): Span[] {
  const edges = sets.flatMap((spans) => spans.flatMap((s) => [[s.startMs, 1] as const, [s.endMs, -1] as const]));
  // Ends before starts at one instant, so spans that only touch never count as held together.
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: Span[] = [];
  let held = 0;
  let from = 0;
  for (const [at, step] of edges) {
    if (held >= count && held + step < count && at > from) out.push({ startMs: from, endMs: at });
    held += step;
    if (held >= count && held - step < count) from = at;
  }
  return union(out);
}
