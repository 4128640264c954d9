/**
 * The rules diarization is scored by, every one named, because the reference tools
 * differ: pyannote.metrics' `collar` is the no-score zone's whole width
 * (pyannote/pyannote-metrics, src/pyannote/metrics/utils.py, `extrude`), md-eval's and
 * dscore's `--collar` is its reach on each side (nryant/dscore, README.md). A report
 * records the rules it was scored by and the tools' settings that give its numbers.
 */

import type { Collar, DiarizationRules } from '../../timeline/types.js';

export type { Collar, DiarizationRules };

/** The values of each rule that is a choice, the one list options, flags and checks read. */
export const RULE_CHOICES = Object.freeze({
  collarPer: ['total', 'side'],
  overlap: ['scored', 'skipped'],
  region: ['extents', 'reference-extent'],
  mapping: ['scored-time', 'whole-region'],
  jerMapping: ['overlap', 'jaccard'],
} as const satisfies Record<string, readonly string[]>);

/** pyannote.metrics' defaults: no collar, overlap scored, the extents of both sides. */
export const DEFAULT_RULES: DiarizationRules = Object.freeze({
  collar: Object.freeze({ ms: 0, per: 'total' }),
  overlap: 'scored',
  region: 'extents',
  mapping: 'scored-time',
  jerMapping: 'overlap',
});

/**
 * A speaker's turn spans the short pauses between its words, as a diarizer's segment
 * does, up to a pause this long (a fixed rule, named in every report's description).
 */
export const WORD_JOIN_MS = 500;

/** How far the no-score zone reaches on each side of a reference boundary, in ms. */
export const collarReachMs = (collar: Collar): number => (collar.per === 'side' ? collar.ms : collar.ms / 2);

const seconds = (ms: number): string => String(ms / 1000);

/** Whether collars or skipped overlap take time out of the region: only then do the two pairings differ. */
export const narrowsRegion = (rules: DiarizationRules): boolean => collarReachMs(rules.collar) > 0 || rules.overlap === 'skipped';

/** The rules in words, for a report's header. */
export function describeRules(rules: DiarizationRules): string {
  const reach = collarReachMs(rules.collar);
  const collar = reach === 0 ? 'no collar' : `collar ±${reach} ms around each reference boundary (${2 * reach} ms in all)`;
  const region = rules.region === 'extents' ? 'the UEM, else the reference and hypothesis extents' : "the UEM, else the reference's extent";
  const within = rules.mapping === 'scored-time' ? 'the scored time' : 'the whole region';
  const jer = rules.jerMapping === 'overlap' ? 'most time together' : 'highest Jaccard index';
  return (
    `${collar}; overlapped speech ${rules.overlap}; scored over ${region}; speakers paired one to one for the most time together within ${within} (JER: ${jer}); ` +
    `a reference speaker's own overlapping turns merged first (as dscore); the server's labelled words joined into turns that end where another speaker's word starts or at a pause of ${WORD_JOIN_MS} ms`
  );
}

/** The settings of pyannote.metrics and dscore (md-eval) that give the same DER and JER; none where the rules match neither. */
export function matchingTools(rules: DiarizationRules): { der: string[]; jer: string[] } {
  const reach = collarReachMs(rules.collar);
  const skip = rules.overlap === 'skipped';
  const narrowed = narrowsRegion(rules);
  const uem = rules.region === 'reference-extent' ? " with the reference's extent as the UEM" : '';
  const pyannote = `collar=${seconds(2 * reach)}, skip_overlap=${skip ? 'True' : 'False'}`;
  const mdEval = `dscore --collar ${seconds(reach)}${skip ? ' --ignore_overlaps' : ''} (md-eval.pl -c ${seconds(reach)}${skip ? ' -1' : ''})${uem}`;
  return {
    der: [
      ...(rules.mapping === 'scored-time' || !narrowed ? [`pyannote.metrics DiarizationErrorRate(${pyannote})${uem}`] : []),
      ...(rules.mapping === 'whole-region' || !narrowed ? [mdEval] : []),
    ],
    jer:
      rules.jerMapping === 'overlap'
        ? [`pyannote.metrics JaccardErrorRate(${pyannote})${uem}`]
        : // dscore's JER has no collar and scores overlap, on 10 ms frames.
          narrowed
          ? []
          : [`dscore's JER${uem} (to its 10 ms frames)`],
  };
}

/** The rules as a report records them: as set, in words, and the tools' settings that match. */
export interface DiarizationRecord {
  rules: DiarizationRules;
  description: string;
  matches: { der: string[]; jer: string[] };
}

export const diarizationRecord = (rules: DiarizationRules): DiarizationRecord => ({ rules, description: describeRules(rules), matches: matchingTools(rules) });
