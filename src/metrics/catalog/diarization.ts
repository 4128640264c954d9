import type { SessionView } from '../../views/session-view.js';
import { corpusDiarization, corpusSpeakerStability, corpusWordSpeakerErrors, type CorpusDiarization } from '../diarization/corpus.js';
import { countedInputs, sessionSpeakers, type InputSpeakers } from '../diarization/session.js';
import type { MetricDefinition } from './definition.js';

/**
 * Speaker attribution (docs/diarization.md): inputs with reference speaker turns against
 * the speakers a server labelled their words with. DER and JER are scored under the
 * run's rules (`--der-*`; pyannote.metrics' defaults: no collar, overlap scored), which
 * the report records; the word-level figures take no collar and score overlapped speech
 * whatever the rules say. A figure is present only where the server labelled some
 * input; then an input it did not label counts as missed speech.
 * Per session the session's inputs are pooled as the corpus pools every input.
 */
const INPUTS = 'over inputs with reference speaker turns (those the server labelled no word of count as missed speech), once the server labelled any';
const TIME_RULES = `${INPUTS}, under the report's diarization rules`;
const WORD_RULES = `${INPUTS}; each word placed at its midpoint, with no collar and overlapped speech scored whatever the diarization rules say (a word said in overlap is right with either speaker)`;

/** Figures need no interval here (the summary has them, and `report compare` resamples the reductions themselves). */
const VALUES_ONLY = { intervals: false } as const;

const inputsOf = (views: readonly SessionView[]): readonly InputSpeakers[] => countedInputs(views.flatMap((v) => sessionSpeakers(v)));
const pooled = (inputs: readonly InputSpeakers[]): CorpusDiarization | undefined =>
  inputs.length === 0
    ? undefined
    : corpusDiarization(
        inputs.map((i) => i.score),
        VALUES_ONLY,
      );
const orNull = (value: number | null | undefined): number | null => value ?? null;
const orUndefined = (value: number | null | undefined): number | undefined => value ?? undefined;

type Part = 'der' | 'missed' | 'falseAlarm' | 'confusion' | 'jer';
type Figure = { part: Part } | { words: 'wrong' | 'relabelled' };

const valueOf = (inputs: readonly InputSpeakers[], figure: Figure): number | null => {
  if ('part' in figure) return orNull(pooled(inputs)?.[figure.part]);
  if (inputs.length === 0) return null;
  return figure.words === 'wrong'
    ? corpusWordSpeakerErrors(
        inputs.map((i) => i.words),
        VALUES_ONLY,
      ).value
    : corpusSpeakerStability(
        inputs.map((i) => i.stability),
        VALUES_ONLY,
      ).value;
};

/** One figure per session and its pool over the corpus (its interval resamples sessions). */
function figure(name: string, quantity: string, description: string, measured: Figure): MetricDefinition[] {
  const base = { unit: 'ratio', tasks: ['stt', 'batch_stt'], tags: ['quality'], better: 'lower' } as const;
  const scored = 'part' in measured ? TIME_RULES : WORD_RULES;
  return [
    { ...base, name, scope: 'session', quantity: `${quantity}, ${scored}`, description, value: (v) => orUndefined(valueOf(inputsOf([v]), measured)) },
    {
      ...base,
      name: `corpus_${name}`,
      scope: 'corpus',
      quantity: `${quantity}, pooled over every session's inputs, ${scored}`,
      description: `${description} Pooled over the corpus; its interval resamples sessions.`,
      part: sessionSpeakers,
      reduce: (parts: InputSpeakers[][]) => valueOf(countedInputs(parts.flat()), measured),
    },
  ];
}

export const DIARIZATION_METRICS: MetricDefinition[] = [
  ...figure(
    'der',
    'diarization error rate: missed speech, false alarm and speaker confusion over scored reference speaker time',
    "Who spoke when, wrong: a server's speaker labels against the reference turns, its words joined into turns that end where another speaker's word starts or at a pause of 500 ms.",
    { part: 'der' },
  ),
  ...figure('der_missed', 'missed reference speech over scored reference speaker time', "DER's missed-speech part.", { part: 'missed' }),
  ...figure('der_false_alarm', 'hypothesis speech where no reference speaker talks, over scored reference speaker time', "DER's false-alarm part.", {
    part: 'falseAlarm',
  }),
  ...figure('der_confusion', 'speech given to the wrong speaker over scored reference speaker time', "DER's speaker-confusion part.", { part: 'confusion' }),
  ...figure('jer', 'Jaccard error rate: the mean over reference speakers of their unmatched time over their union with their pair', 'JER (DIHARD II).', {
    part: 'jer',
  }),
  ...figure(
    'word_speaker_error',
    'share of labelled words given to the wrong speaker (speakers paired one to one for the most words right)',
    'Word-level diarization error.',
    { words: 'wrong' },
  ),
  ...figure(
    'speaker_relabelled',
    'share of labelled words whose speaker changed after the word was first emitted (provisional labels included; a word followed across revisions by its text and time; the final label is scored)',
    'Speaker stability of a stream: labels revised as partials are.',
    { words: 'relabelled' },
  ),
];
