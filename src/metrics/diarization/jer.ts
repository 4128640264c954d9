import { maximumWeightPairs } from './assignment.js';
import type { DiarizationRules } from './rules.js';
import type { SpeakerTable } from './speaker-table.js';

/** One reference speaker's Jaccard error: (false alarm + missed) / the union of its time and its paired speaker's; 1 when unpaired. */
export interface SpeakerJaccardError {
  speaker: string;
  pairedWith?: string;
  error: number;
}

export interface JaccardErrors {
  /** One per reference speaker with scored speech. */
  speakers: SpeakerJaccardError[];
  /** Hypothesis speakers with scored speech (an error without reference speakers). */
  hypothesisSpeakers: number;
}

/**
 * Jaccard error rate's parts (DIHARD II; nryant/dscore, scorelib/metrics.py `jer`):
 * reference and hypothesis speakers paired one to one as the rules say, then each
 * reference speaker scored by itself, so a talkative speaker weighs no more than a
 * quiet one and extra hypothesis speakers cost nothing.
 */
export function jaccardErrorsOf(table: SpeakerTable, jerMapping: DiarizationRules['jerMapping']): JaccardErrors {
  const { referenceMs, hypothesisMs, togetherMs } = table;
  const unionMs = (r: number, h: number): number => referenceMs[r]! + hypothesisMs[h]! - togetherMs[r]![h]!;
  const weights = jerMapping === 'overlap' ? togetherMs : togetherMs.map((row, r) => row.map((ms, h) => ms / unionMs(r, h)));
  const pairedWith = new Map(maximumWeightPairs(weights, table.hypothesis.length));
  return {
    speakers: table.reference.map((speaker, r) => {
      const h = pairedWith.get(r);
      if (h === undefined) return { speaker, error: 1 };
      return { speaker, pairedWith: table.hypothesis[h]!, error: (unionMs(r, h) - togetherMs[r]![h]!) / unionMs(r, h) };
    }),
    hypothesisSpeakers: table.hypothesis.length,
  };
}

/** The mean of the reference speakers' errors, at most 1. Without reference speakers: 1 if the hypothesis has any, else 0 (as dscore). */
export function meanSpeakerError(errorSum: number, speakers: number, hypothesisSpeakers: number): number {
  if (speakers === 0) return hypothesisSpeakers > 0 ? 1 : 0;
  return errorSum / speakers;
}

/** JER of one recording. */
export const jerOf = (errors: JaccardErrors): number =>
  meanSpeakerError(
    errors.speakers.reduce((n, s) => n + s.error, 0),
    errors.speakers.length,
    errors.hypothesisSpeakers,
  );
