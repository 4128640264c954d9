import { maximumWeightPairs } from './assignment.js';
import type { SpeakerTable } from './speaker-table.js';

/** Diarization error's parts on one recording, in ms of speaker time, with the speaker pairing they were counted under. */
export interface DiarizationErrors {
  /** Reference speaker time scored (overlapped speech once per speaker): DER's denominator. */
  scoredMs: number;
  missedMs: number;
  falseAlarmMs: number;
  /** Speaker time given to a hypothesis speaker other than the one paired with the reference speaker talking. */
  confusionMs: number;
  /** Each paired hypothesis speaker's reference speaker; a speaker left out is unpaired. */
  pairs: Record<string, string>;
}

/**
 * DER's parts from the speaker table of the scored time, speakers paired one to one for
 * the most time together in `pairing` (that table, or one of a wider region). Missed
 * speech and false alarm do not depend on the pairing; confusion is the time where both
 * sides talk that the pairing cannot account for (NIST RT-09's definition, as
 * pyannote.metrics' IdentificationErrorRate counts it per segment).
 */
export function diarizationErrorsOf(table: SpeakerTable, pairing: SpeakerTable = table): DiarizationErrors {
  const pairs = maximumWeightPairs(pairing.togetherMs, pairing.hypothesis.length).map(([r, h]) => [pairing.reference[r]!, pairing.hypothesis[h]!] as const);
  const pairedMs = pairs.reduce((n, [ref, hyp]) => {
    const [r, h] = [table.reference.indexOf(ref), table.hypothesis.indexOf(hyp)];
    return n + (r < 0 || h < 0 ? 0 : table.togetherMs[r]![h]!);
  }, 0);
  return {
    scoredMs: table.scoredMs,
    missedMs: table.missedMs,
    falseAlarmMs: table.falseAlarmMs,
    // Rounding of sums of fractional ms must not make a perfect pairing a negative error.
    confusionMs: Math.max(0, table.matchableMs - pairedMs),
    pairs: Object.fromEntries(pairs.map(([ref, hyp]) => [hyp, ref])),
  };
}

/** (missed + false alarm + confusion) / scored; may pass 1. With no reference speech: 0 if nothing was said either, else 1 (as pyannote.metrics and dscore). */
export function derOf(errors: Omit<DiarizationErrors, 'pairs'>): number {
  const wrong = errors.missedMs + errors.falseAlarmMs + errors.confusionMs;
  if (errors.scoredMs === 0) return wrong === 0 ? 0 : 1;
  return wrong / errors.scoredMs;
}
