import { BOOTSTRAP_SEED, pooledRatioInterval, type Interval } from '../bootstrap.js';
import { derOf } from './der.js';
import { meanSpeakerError } from './jer.js';
import type { DiarizationScore } from './score.js';
import { relabelledShare, type SpeakerStability } from './stability.js';
import { wordSpeakerErrorRate, type WordSpeakerErrors } from './words.js';

/**
 * Corpus figures pool their parts over recordings, as corpus WER pools errors over
 * words: DER is all recordings' error time over all their scored time (md-eval's and
 * pyannote.metrics' global DER), JER the mean over every reference speaker of every
 * recording (dscore's global JER). Each 95% interval resamples recordings (seed
 * `BOOTSTRAP_SEED`), so a long recording weighs in as one unit, not as its minutes.
 */
export interface CorpusDiarization {
  recordings: number;
  scoredMs: number;
  /** Each part over the scored time; they add up to DER. Null without scored reference speech, where DER is 0 or 1. */
  der: number | null;
  missed: number | null;
  falseAlarm: number | null;
  confusion: number | null;
  derCi95: Interval | null;
  jer: number | null;
  jerCi95: Interval | null;
}

/** A figure with its interval: `value` is null without units. */
export interface PooledFigure {
  value: number | null;
  ci95: Interval | null;
}

const sum = (values: readonly number[]): number => values.reduce((n, v) => n + v, 0);
const intervalOf = (numerators: readonly number[], denominators: readonly number[]): Interval | null =>
  pooledRatioInterval(numerators, denominators, BOOTSTRAP_SEED);

/**
 * The pooled figures; `intervals: false` leaves the bootstrap out (its intervals null),
 * for a caller that only needs the values and may itself be resampling.
 */
export interface PoolingOptions {
  intervals?: boolean;
}

export function corpusDiarization(scores: readonly DiarizationScore[], { intervals = true }: PoolingOptions = {}): CorpusDiarization {
  const interval = intervals ? intervalOf : () => null;
  const parts = scores.map((s) => s.der);
  const errorsOf = parts.map((d) => d.missedMs + d.falseAlarmMs + d.confusionMs);
  const scoredMs = sum(parts.map((d) => d.scoredMs));
  const pooled = {
    scoredMs,
    missedMs: sum(parts.map((d) => d.missedMs)),
    falseAlarmMs: sum(parts.map((d) => d.falseAlarmMs)),
    confusionMs: sum(parts.map((d) => d.confusionMs)),
  };
  // Without scored reference speech the parts are no share of anything: DER alone says 0 or 1.
  const share = (ms: number): number | null => (scoredMs === 0 ? null : ms / scoredMs);
  const speakerErrorSums = scores.map((s) => sum(s.jer.speakers.map((j) => j.error)));
  const speakers = scores.map((s) => s.jer.speakers.length);
  return {
    recordings: scores.length,
    scoredMs,
    der: scores.length === 0 ? null : derOf(pooled),
    missed: share(pooled.missedMs),
    falseAlarm: share(pooled.falseAlarmMs),
    confusion: share(pooled.confusionMs),
    derCi95: interval(
      errorsOf,
      parts.map((d) => d.scoredMs),
    ),
    jer: scores.length === 0 ? null : meanSpeakerError(sum(speakerErrorSums), sum(speakers), sum(scores.map((s) => s.jer.hypothesisSpeakers))),
    jerCi95: interval(speakerErrorSums, speakers),
  };
}

/** Word-level diarization error over the corpus: wrong words over scored words, resampling recordings. */
export function corpusWordSpeakerErrors(errors: readonly WordSpeakerErrors[], { intervals = true }: PoolingOptions = {}): PooledFigure {
  const words = errors.map((e) => e.words);
  const wrong = errors.map((e) => e.wrong);
  return { value: wordSpeakerErrorRate({ words: sum(words), wrong: sum(wrong) }), ci95: intervals ? intervalOf(wrong, words) : null };
}

/** The share of words relabelled over the corpus, resampling streams. */
export function corpusSpeakerStability(streams: readonly SpeakerStability[], { intervals = true }: PoolingOptions = {}): PooledFigure {
  const words = streams.map((s) => s.words);
  const relabelled = streams.map((s) => s.relabelledWords);
  return { value: relabelledShare({ words: sum(words), relabelledWords: sum(relabelled) }), ci95: intervals ? intervalOf(relabelled, words) : null };
}
