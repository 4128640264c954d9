import type { InputView, SessionView } from '../views/session-view.js';
import { BOOTSTRAP_SEED, pooledRatioInterval, type Interval } from './bootstrap.js';
import { LEGACY_NORMALIZER, normalizerById, type Normalizer } from './normalizers/index.js';
import { errorRate, transcriptErrors, type CharErrors, type EditCounts, type TranscriptErrors, type WordErrors } from './wer.js';

/** Each view's errors, scored once however many figures ask (views are memoized per timeline, so this is too). */
const scores = new WeakMap<InputView, TranscriptErrors | undefined>();

/** Word and character errors of the input's transcript against its reference, after the input's normalizer; undefined without both. */
export function transcriptErrorsOf(input: InputView): TranscriptErrors | undefined {
  if (scores.has(input)) return scores.get(input);
  const plan = input.plan?.kind === 'audio' ? input.plan : undefined;
  const reference = plan?.reference;
  const text = input.transcript.text;
  const errors = reference && text !== undefined ? scoredText(reference, text, normalizerById(plan?.normalizer)) : undefined;
  scores.set(input, errors);
  return errors;
}

/** The most characters of reference and transcript the text memo below holds before it starts again. */
const TEXT_MEMO_CHARS = 1 << 20;
const textMemo = new Map<string, TranscriptErrors>();
let textMemoChars = 0;

/**
 * The errors of a transcript against its reference, scored once per distinct pair: a run
 * replays its dataset, so sessions share references and often transcripts, and
 * normalizing and aligning them again for each was most of a large report's scoring
 * time. Bounded by characters, not pairs (a long recording's text is long). The errors
 * are frozen, as every input with that pair shares them.
 */
function scoredText(reference: string, text: string, normalizer: Normalizer): TranscriptErrors {
  const key = `${normalizer.id}\n${reference}\n${text}`;
  let errors = textMemo.get(key);
  if (!errors) {
    const { words, chars } = transcriptErrors(reference, text, normalizer);
    errors = Object.freeze({ normalizer: normalizer.id, words: Object.freeze(words), chars: Object.freeze(chars) });
    if (textMemoChars + key.length > TEXT_MEMO_CHARS) {
      textMemo.clear();
      textMemoChars = 0;
    }
    textMemo.set(key, errors);
    textMemoChars += key.length;
  }
  return errors;
}

/** An input with a reference and a final transcript, scored. */
export interface ScoredInput {
  split: string;
  language?: string;
  normalizer: string;
  words: WordErrors;
  chars: CharErrors;
}

/** Every input of the views with a reference and a final transcript, scored with its normalizer. */
export function scoredInputs(views: readonly SessionView[]): ScoredInput[] {
  return views.flatMap((view) => view.inputs.flatMap(scoredInput));
}

/** An input scored with its normalizer: one entry where it has a reference and a final transcript, none otherwise. */
export function scoredInput(input: InputView): ScoredInput[] {
  // Once per input: a session's figures and its corpus parts share it.
  let scored = scoredOf.get(input);
  if (!scored) scoredOf.set(input, (scored = scoreInput(input)));
  return scored;
}
const scoredOf = new WeakMap<InputView, ScoredInput[]>();

function scoreInput(input: InputView): ScoredInput[] {
  const errors = transcriptErrorsOf(input);
  const plan = input.plan?.kind === 'audio' ? input.plan : undefined;
  if (!errors || !plan) return [];
  const { words, chars } = errors;
  return [
    {
      split: plan.split,
      ...(plan.language !== undefined ? { language: plan.language } : {}),
      normalizer: plan.normalizer ?? LEGACY_NORMALIZER,
      words,
      chars,
    },
  ];
}

/**
 * Word and character errors summed over inputs: corpus WER's and CER's numerators and
 * denominators. One pass, no list per count: a level pools 100,000s of inputs.
 */
export function pooledErrors(inputs: readonly ScoredInput[]): { words: WordErrors; chars: CharErrors } {
  return pooledPartErrors([[inputs]]);
}

/** `pooledErrors` of the inputs of corpus WER's parts (per session, per input), without flattening them first. */
export function pooledPartErrors(parts: ReadonlyArray<ReadonlyArray<readonly ScoredInput[]>>): { words: WordErrors; chars: CharErrors } {
  const words = { substitutions: 0, deletions: 0, insertions: 0, words: 0 };
  const chars = { substitutions: 0, deletions: 0, insertions: 0, chars: 0 };
  for (const session of parts) {
    for (const scored of session) {
      for (const input of scored) {
        add(words, input.words);
        words.words += input.words.words;
        add(chars, input.chars);
        chars.chars += input.chars.chars;
      }
    }
  }
  return { words, chars };
}

function add(into: EditCounts, edits: EditCounts): void {
  into.substitutions += edits.substitutions;
  into.deletions += edits.deletions;
  into.insertions += edits.insertions;
}

/** Corpus WER of a group of inputs, with its CER and the normalizers it used. */
export interface GroupQuality {
  /** The normalizer ids of its inputs, comma-separated when they differ. */
  normalizer: string;
  turns: number;
  wer: number | null;
  cer: number | null;
  referenceWords: number;
}

/** Normalizer ids, each once, in order, comma-separated. */
export function normalizerList(ids: Iterable<string>): string {
  return [...new Set(ids)].sort().join(', ');
}

/** Corpus figures of each group of inputs, groups in name order. */
export function qualityBy(inputs: readonly ScoredInput[], key: (input: ScoredInput) => string): Record<string, GroupQuality> {
  const groups = new Map<string, ScoredInput[]>();
  for (const input of inputs) {
    const name = key(input);
    const group = groups.get(name);
    if (group) group.push(input);
    else groups.set(name, [input]);
  }
  return Object.fromEntries(
    [...groups]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, group]) => {
        const { words, chars } = pooledErrors(group);
        return [
          name,
          {
            normalizer: normalizerList(group.map((i) => i.normalizer)),
            turns: group.length,
            wer: errorRate(words),
            cer: errorRate(chars),
            referenceWords: words.words,
          },
        ];
      }),
  );
}

/** The 95% bootstrap interval of corpus WER, resampling turns (seed `BOOTSTRAP_SEED`); null without turns or reference words. */
export function corpusWerInterval(inputs: readonly ScoredInput[]): Interval | null {
  if (inputs.every((i) => i.words.words === 0)) return null;
  const errors = inputs.map(({ words: w }) => w.substitutions + w.deletions + w.insertions);
  return pooledRatioInterval(
    errors,
    inputs.map((i) => i.words.words),
    BOOTSTRAP_SEED,
  );
}
