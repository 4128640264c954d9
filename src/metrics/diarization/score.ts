import { diarizationErrorsOf, type DiarizationErrors } from './der.js';
import { jaccardErrorsOf, type JaccardErrors } from './jer.js';
import { scoredRegion } from './region.js';
import { DEFAULT_RULES, narrowsRegion, type DiarizationRules } from './rules.js';
import { speakerTable } from './speaker-table.js';
import type { Span } from './spans.js';
import type { SpeakerTurn } from './turns.js';

/** One recording's diarization scored: DER's parts and JER's, under one set of rules. */
export interface DiarizationScore {
  der: DiarizationErrors;
  jer: JaccardErrors;
}

/** The region before collars and overlap are taken out, where md-eval pairs speakers. */
const WHOLE = { collar: { ms: 0, per: 'total' }, overlap: 'scored' } as const;

/**
 * Scores hypothesis turns against reference turns under `rules` (pyannote.metrics'
 * defaults unless given), over the recording's UEM where it has one. Times are exact
 * (no frames): every figure is a sum over the spans between turn boundaries.
 */
export function scoreDiarization(
  reference: readonly SpeakerTurn[],
  hypothesis: readonly SpeakerTurn[],
  rules: DiarizationRules = DEFAULT_RULES,
  uem?: readonly Span[],
): DiarizationScore {
  const table = speakerTable(reference, hypothesis, scoredRegion(reference, hypothesis, rules, uem));
  const pairing =
    rules.mapping === 'whole-region' && narrowsRegion(rules)
      ? speakerTable(reference, hypothesis, scoredRegion(reference, hypothesis, { ...rules, ...WHOLE }, uem))
      : table;
  return { der: diarizationErrorsOf(table, pairing), jer: jaccardErrorsOf(table, rules.jerMapping) };
}
