import type { AudioInput, SessionTimeline, SpeakerTurn } from '../../timeline/types.js';
import type { SessionView } from '../../views/session-view.js';
import { corpusDiarization, corpusSpeakerStability, corpusWordSpeakerErrors, type CorpusDiarization, type PooledFigure } from './corpus.js';
import { scoreDiarization, type DiarizationScore } from './score.js';
import { DEFAULT_RULES, type DiarizationRules } from './rules.js';
import { speakerStability, type SpeakerStability } from './stability.js';
import { wordSpeakerErrors, type SpeakerWord, type WordSpeakerErrors } from './words.js';

/**
 * A session's speaker attribution, from its timeline: each audio input's reference
 * turns against the speaker labels the server gave the words said in that input's audio.
 * The final labels are scored: a word (known by its start) takes the label of the last
 * lasting (not provisional) event that carried it. A word without times or a speaker,
 * or labelled `UU` (Speechmatics' unknown speaker), is no label.
 */
export interface InputSpeakers {
  input: number;
  score: DiarizationScore;
  words: WordSpeakerErrors;
  stability: SpeakerStability;
}

/**
 * Consecutive words of one speaker join into one turn across a pause shorter than this,
 * as a diarizer's segment spans the short gaps between its words.
 */
export const WORD_JOIN_MS = 500;

/** Labels that say the server could not tell the speaker. */
const UNKNOWN = new Set(['UU']);

interface Labelled {
  /** The final label of each word, by its start. */
  final: Map<number, SpeakerWord>;
  /** Every labelled emission, in arrival order, with the word's start as its identity. */
  emissions: Array<{ word: number; speaker: string }>;
}

function labelledWords(timeline: SessionTimeline): Labelled {
  const final = new Map<number, SpeakerWord>();
  const emissions: Labelled['emissions'] = [];
  for (const event of timeline.received) {
    for (const w of event.words ?? []) {
      if (w.startMs === undefined || w.endMs === undefined || w.speaker === undefined || UNKNOWN.has(w.speaker)) continue;
      emissions.push({ word: w.startMs, speaker: w.speaker });
      if (!event.provisional) final.set(w.startMs, { speaker: w.speaker, startMs: w.startMs, endMs: w.endMs });
    }
  }
  return { final, emissions };
}

/**
 * Words as turns: each speaker's words in time order, joined across pauses under
 * WORD_JOIN_MS, whatever another speaker said meanwhile (two speakers can overlap).
 */
export function turnsOfWords(words: readonly SpeakerWord[]): SpeakerTurn[] {
  const open = new Map<string, SpeakerTurn>();
  const turns: SpeakerTurn[] = [];
  for (const w of [...words].sort((a, b) => a.startMs - b.startMs)) {
    const last = open.get(w.speaker);
    if (last && w.startMs - last.endMs < WORD_JOIN_MS) last.endMs = Math.max(last.endMs, w.endMs);
    else {
      const turn = { speaker: w.speaker, startMs: w.startMs, endMs: w.endMs };
      open.set(w.speaker, turn);
      turns.push(turn);
    }
  }
  return turns;
}

const memo = new WeakMap<SessionTimeline, InputSpeakers[]>();

/**
 * Every audio input with reference turns and at least one labelled word in its audio,
 * scored under the timeline's rules (pyannote.metrics' defaults without them); memoized.
 */
export function sessionSpeakers(view: SessionView): InputSpeakers[] {
  let scored = memo.get(view.timeline);
  if (!scored) {
    scored = scoreInputs(view.timeline, view.timeline.diarizationRules ?? DEFAULT_RULES);
    memo.set(view.timeline, scored);
  }
  return scored;
}

function scoreInputs(timeline: SessionTimeline, rules: DiarizationRules): InputSpeakers[] {
  const inputs = timeline.inputs.filter((i): i is AudioInput & { turns: SpeakerTurn[] } => i.kind === 'audio' && i.turns !== undefined);
  if (inputs.length === 0) return [];
  const { final, emissions } = labelledWords(timeline);
  const within = (input: AudioInput, w: SpeakerWord): boolean => {
    const mid = (w.startMs + w.endMs) / 2;
    return mid >= input.audioStartMs && mid < input.audioEndMs;
  };
  return inputs.flatMap((input) => {
    const words = [...final.values()].filter((w) => within(input, w));
    if (words.length === 0) return [];
    const starts = new Set(words.map((w) => w.startMs));
    return [
      {
        input: input.index,
        score: scoreDiarization(input.turns, turnsOfWords(words), rules),
        words: wordSpeakerErrors(words, input.turns),
        stability: speakerStability(emissions.filter((e) => starts.has(e.word))),
      },
    ];
  });
}

/**
 * Who spoke when in a session, for drawing: every reference turn of its inputs, and the
 * turns of the final labelled words, on the session's audio clock.
 */
export function sessionTurns(timeline: SessionTimeline): { reference: SpeakerTurn[]; hypothesis: SpeakerTurn[] } {
  const reference = timeline.inputs.flatMap((i) => (i.kind === 'audio' ? (i.turns ?? []) : []));
  return { reference, hypothesis: turnsOfWords([...labelledWords(timeline).final.values()]) };
}

/** Speaker attribution over a corpus, each figure with its 95% interval (resampling inputs); undefined when no input was scored. */
export interface CorpusSpeakers extends CorpusDiarization {
  wordSpeakerError: PooledFigure;
  speakerRelabelled: PooledFigure;
}

export function corpusSpeakers(views: readonly SessionView[]): CorpusSpeakers | undefined {
  const inputs = views.flatMap((v) => sessionSpeakers(v));
  if (inputs.length === 0) return undefined;
  return {
    ...corpusDiarization(inputs.map((i) => i.score)),
    wordSpeakerError: corpusWordSpeakerErrors(inputs.map((i) => i.words)),
    speakerRelabelled: corpusSpeakerStability(inputs.map((i) => i.stability)),
  };
}
