import { collarReachMs, type DiarizationRules } from './rules.js';
import { heldByAtLeast, subtract, union, type Span } from './spans.js';
import { extentOf, mergedOwnTurns, speechBySpeaker, type SpeakerTurn } from './turns.js';

/**
 * The time a recording is scored over: its UEM (else the extent the rules name), less a
 * collar around every boundary of every reference turn once a speaker's own overlapping
 * turns are made one (dscore's order), less the reference's
 * overlapped speech where the rules skip it (pyannote.metrics' `uemify` and `extrude`;
 * md-eval's no-score zones).
 */
export function scoredRegion(reference: readonly SpeakerTurn[], hypothesis: readonly SpeakerTurn[], rules: DiarizationRules, uem?: readonly Span[]): Span[] {
  const whole = uem ? union(uem) : extentOf(rules.region === 'extents' ? [...reference, ...hypothesis] : reference);
  const reach = collarReachMs(rules.collar);
  const spoken = mergedOwnTurns(reference);
  const collars = reach > 0 ? spoken.flatMap((t) => [t.startMs, t.endMs].map((at) => ({ startMs: at - reach, endMs: at + reach }))) : [];
  const overlapped = rules.overlap === 'skipped' ? heldByAtLeast([...speechBySpeaker(spoken).values()], 2) : [];
  return subtract(whole, union([...collars, ...overlapped]));
}
