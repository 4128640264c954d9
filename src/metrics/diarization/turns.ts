import { union, type Span } from './spans.js';

/**
 * Who spoke when: one speaker's stretch of speech on a recording (an RTTM line, a
 * server's labelled segment). The same shape wherever turns appear.
 */
export interface SpeakerTurn {
  speaker: string;
  startMs: number;
  endMs: number;
}

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
