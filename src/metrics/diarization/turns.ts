import type { SpeakerTurn } from '../../timeline/types.js';
import { union, type Span } from './spans.js';

/** Who spoke when: the timeline's shape, wherever turns appear (an RTTM line, a server's labelled words joined). */
export type { SpeakerTurn };

/** Each speaker's speech as sorted, disjoint spans, speakers in the order they first appear; a speaker's overlapping turns count once. */
export function speechBySpeaker(turns: readonly SpeakerTurn[]): Map<string, Span[]> {
  const bySpeaker = new Map<string, Span[]>();
  for (const { speaker, startMs, endMs } of turns) {
    const spans = bySpeaker.get(speaker);
    if (spans) spans.push({ startMs, endMs });
    else bySpeaker.set(speaker, [{ startMs, endMs }]);
  }
  for (const [speaker, spans] of bySpeaker) bySpeaker.set(speaker, union(spans));
  return bySpeaker;
}

/**
 * Each speaker's turns that overlap made one, as dscore does before anything else
 * (`merge_turns`: intervaltree's `merge_overlaps`, so turns that only touch stay two);
 * turns without length are dropped. Collars sit at the boundaries of these turns.
 */
export function mergedOwnTurns(turns: readonly SpeakerTurn[]): SpeakerTurn[] {
  const sorted = turns.filter((t) => t.endMs > t.startMs).sort((a, b) => (a.speaker < b.speaker ? -1 : a.speaker > b.speaker ? 1 : a.startMs - b.startMs));
  const out: SpeakerTurn[] = [];
  for (const { speaker, startMs, endMs } of sorted) {
    const last = out[out.length - 1];
    if (last?.speaker === speaker && startMs < last.endMs) last.endMs = Math.max(last.endMs, endMs);
    else out.push({ speaker, startMs, endMs });
  }
  return out;
}

/** From the first turn's start to the last turn's end; empty without turns. */
export function extentOf(turns: readonly SpeakerTurn[]): Span[] {
  let [startMs, endMs] = [Infinity, -Infinity];
  for (const t of turns) {
    if (t.endMs <= t.startMs) continue;
    startMs = Math.min(startMs, t.startMs);
    endMs = Math.max(endMs, t.endMs);
  }
  return startMs < endMs ? [{ startMs, endMs }] : [];
}
