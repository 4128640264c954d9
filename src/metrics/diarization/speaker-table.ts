import { intersect, lengthOf, type Span } from './spans.js';
import { speechBySpeaker, type SpeakerTurn } from './turns.js';

/**
 * Reference and hypothesis speech within the scored region, swept once: what DER and
 * JER are both computed from. Between any two consecutive boundaries the speakers
 * talking on each side are fixed, so every sum is exact.
 */
export interface SpeakerTable {
  reference: string[];
  hypothesis: string[];
  /** Each reference speaker's scored speech. */
  referenceMs: number[];
  hypothesisMs: number[];
  /** `togetherMs[r][h]`: time reference speaker r and hypothesis speaker h both talk. */
  togetherMs: number[][];
  /** Σ reference speakers talking × time: DER's denominator, overlapped speech counted once per speaker. */
  scoredMs: number;
  /** Σ (reference speakers − hypothesis speakers, where more) × time. */
  missedMs: number;
  /** Σ (hypothesis speakers − reference speakers, where more) × time. */
  falseAlarmMs: number;
  /** Σ min(reference, hypothesis speakers) × time: the most that pairing speakers can get right. */
  matchableMs: number;
}

export function speakerTable(reference: readonly SpeakerTurn[], hypothesis: readonly SpeakerTurn[], region: readonly Span[]): SpeakerTable {
  const cropped = (turns: readonly SpeakerTurn[]): Array<[string, Span[]]> =>
    [...speechBySpeaker(turns)].map(([speaker, spans]): [string, Span[]] => [speaker, intersect(spans, region)]).filter(([, spans]) => spans.length > 0);
  const ref = cropped(reference);
  const hyp = cropped(hypothesis);
  const table: SpeakerTable = {
    reference: ref.map(([speaker]) => speaker),
    hypothesis: hyp.map(([speaker]) => speaker),
    referenceMs: ref.map(([, spans]) => lengthOf(spans)),
    hypothesisMs: hyp.map(([, spans]) => lengthOf(spans)),
    togetherMs: ref.map(() => hyp.map(() => 0)),
    scoredMs: 0,
    missedMs: 0,
    falseAlarmMs: 0,
    matchableMs: 0,
  };
  // Boundaries of both sides: [time, side (0 reference, 1 hypothesis), speaker index, +1 start or -1 end].
  const edges = [ref, hyp].flatMap((speakers, side) =>
    speakers.flatMap(([, spans], index) => spans.flatMap((s) => [[s.startMs, side, index, 1] as const, [s.endMs, side, index, -1] as const])),
  );
  edges.sort((a, b) => a[0] - b[0]);
  const talking = [new Set<number>(), new Set<number>()] as const;
  let from = edges[0]?.[0] ?? 0;
  for (const [at, side, index, step] of edges) {
    const ms = at - from;
    if (ms > 0) {
      const [r, h] = [talking[0].size, talking[1].size];
      table.scoredMs += r * ms;
      table.missedMs += Math.max(0, r - h) * ms;
      table.falseAlarmMs += Math.max(0, h - r) * ms;
      table.matchableMs += Math.min(r, h) * ms;
      for (const i of talking[0]) {
        const row = table.togetherMs[i]!;
        for (const j of talking[1]) row[j] = row[j]! + ms;
      }
      from = at;
    }
    if (step === 1) talking[side]!.add(index);
    else talking[side]!.delete(index);
  }
  return table;
}
