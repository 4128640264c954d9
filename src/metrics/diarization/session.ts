import type { AudioInput, SessionTimeline, SpeakerTurn } from '../../timeline/types.js';
import type { SessionView } from '../../views/session-view.js';
import { corpusDiarization, corpusSpeakerStability, corpusWordSpeakerErrors, type CorpusDiarization, type PooledFigure } from './corpus.js';
import { scoreDiarization, type DiarizationScore } from './score.js';
import { DEFAULT_RULES, WORD_JOIN_MS, type DiarizationRules } from './rules.js';
import { speakerStability, type SpeakerStability } from './stability.js';
import { wordSpeakerErrors, type SpeakerWord, type WordSpeakerErrors } from './words.js';
import { labelledWordsByInput } from './labelled-words.js';

/**
 * A session's speaker attribution, from its timeline: each audio input's reference
 * turns against the speaker labels the server gave the words said in that input's audio
 * (`labelled-words.ts`: a word followed across its revisions by its text and time, its
 * final label that of its last lasting emission; no label, or `UU`, is none). An input
 * with reference turns and no labelled word is scored too, as all missed speech, with
 * `labelledWords` 0.
 */
export interface InputSpeakers {
  input: number;
  /** Words with a final label in the input's audio; 0 for an input the server did not label. */
  labelledWords: number;
  score: DiarizationScore;
  words: WordSpeakerErrors;
  stability: SpeakerStability;
}

/**
 * Words as turns: the words in time order, a turn running on while the same speaker
 * talks on. A turn ends where another speaker's word starts (so a word given to the
 * wrong speaker is speaker confusion, not two speakers at once) and at a pause of
 * WORD_JOIN_MS or more. Words that overlap in time still overlap: a turn spans its
 * words, from the first one's start to the latest end.
 */
export function turnsOfWords(words: readonly SpeakerWord[]): SpeakerTurn[] {
  const turns: SpeakerTurn[] = [];
  let last: SpeakerTurn | undefined;
  for (const w of [...words].sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs)) {
    if (last && last.speaker === w.speaker && w.startMs - last.endMs < WORD_JOIN_MS) last.endMs = Math.max(last.endMs, w.endMs);
    else turns.push((last = { speaker: w.speaker, startMs: w.startMs, endMs: w.endMs }));
  }
  return turns;
}

const memo = new WeakMap<SessionTimeline, InputSpeakers[]>();

/**
 * Every audio input with reference turns, scored under the timeline's rules
 * (pyannote.metrics' defaults without them); memoized. `countedInputs` says which count.
 */
export function sessionSpeakers(view: SessionView): InputSpeakers[] {
  let scored = memo.get(view.timeline);
  if (!scored) {
    scored = scoreInputs(view.timeline, view.timeline.diarizationRules ?? DEFAULT_RULES);
    memo.set(view.timeline, scored);
  }
  return scored;
}

/**
 * The inputs speaker figures count: every one, those the server did not label as missed
 * speech, once the server labelled any of them; none where it labelled nothing (a server
 * that does not diarize has no speaker figures).
 */
export const countedInputs = (inputs: readonly InputSpeakers[]): readonly InputSpeakers[] => (inputs.some((i) => i.labelledWords > 0) ? inputs : []);

function scoreInputs(timeline: SessionTimeline, rules: DiarizationRules): InputSpeakers[] {
  const inputs = timeline.inputs.filter((i): i is AudioInput & { turns: SpeakerTurn[] } => i.kind === 'audio' && i.turns !== undefined);
  if (inputs.length === 0) return [];
  const labelled = labelledWordsByInput(timeline);
  return inputs.map((input) => {
    const { final, emissions } = labelled.get(input.index) ?? { final: [], emissions: [] };
    return {
      input: input.index,
      labelledWords: final.length,
      score: scoreDiarization(input.turns, turnsOfWords(final), rules),
      words: wordSpeakerErrors(final, input.turns),
      stability: speakerStability(emissions),
    };
  });
}

/**
 * Who spoke when in a session, for drawing: every reference turn of its inputs, and the
 * turns of the final labelled words, on the session's audio clock.
 */
export function sessionTurns(timeline: SessionTimeline): { reference: SpeakerTurn[]; hypothesis: SpeakerTurn[] } {
  const reference = timeline.inputs.flatMap((i) => (i.kind === 'audio' ? (i.turns ?? []) : []));
  return { reference, hypothesis: [...labelledWordsByInput(timeline).values()].flatMap((words) => turnsOfWords(words.final)) };
}

/** Speaker attribution over a corpus, each figure with its 95% interval (resampling inputs); undefined when no input was scored. */
export interface CorpusSpeakers extends CorpusDiarization {
  /** Inputs with reference turns the server gave no label, counted as missed speech (in `recordings`). */
  unlabelled: number;
  wordSpeakerError: PooledFigure;
  speakerRelabelled: PooledFigure;
}

export function corpusSpeakers(views: readonly SessionView[]): CorpusSpeakers | undefined {
  return corpusSpeakersOf(views.flatMap((v) => sessionSpeakers(v)));
}

/** `corpusSpeakers` of the sessions' scored inputs (`sessionSpeakers`), pooled. */
export function corpusSpeakersOf(scored: readonly InputSpeakers[]): CorpusSpeakers | undefined {
  const inputs = countedInputs(scored);
  if (inputs.length === 0) return undefined;
  return {
    ...corpusDiarization(inputs.map((i) => i.score)),
    unlabelled: inputs.filter((i) => i.labelledWords === 0).length,
    wordSpeakerError: corpusWordSpeakerErrors(inputs.map((i) => i.words)),
    speakerRelabelled: corpusSpeakerStability(inputs.map((i) => i.stability)),
  };
}
