import type { AudioInput, SessionTimeline } from '../../timeline/types.js';
import type { WordEmission } from './stability.js';
import type { SpeakerWord } from './words.js';

/**
 * The words a server labelled, followed across its revisions: a streaming server sends a
 * word, then sends it again as its partials are revised (re-timed, relabelled) until a
 * lasting event settles it. Each word is given to one input, and each input's words are
 * followed on their own, so inputs that share no clock (every batch request's audio
 * starts at 0 ms) never mix.
 */
export interface InputWords {
  /** The final labelled words: each word's last lasting (not provisional) emission, where it named a speaker. */
  final: SpeakerWord[];
  /** Every labelled emission of those words, in arrival order, a word known by its index. */
  emissions: WordEmission[];
}

/** Labels that say the server could not tell the speaker (Speechmatics' unknown speaker). */
const UNKNOWN = new Set(['UU']);

/** One word as an event carried it: its speaker, or none (no label, or `UU`). */
interface Emission {
  startMs: number;
  endMs: number;
  speaker: string | undefined;
  lasting: boolean;
}

/** A word followed across its emissions, at the times it was last sent. */
interface Followed {
  id: number;
  startMs: number;
  endMs: number;
  /** Its last lasting emission. */
  final?: Emission;
}

/** How many followed words either side of a word's place in time may be the same word (a word overlaps its neighbours at most). */
const NEIGHBOURS = 4;

const overlapMs = (a: { startMs: number; endMs: number }, b: { startMs: number; endMs: number }): number =>
  Math.min(a.endMs, b.endMs) - Math.max(a.startMs, b.startMs);
/** Two sendings of one word: their times overlap, or (a word without length) are the same. */
const sameWord = (a: Emission, b: Followed): boolean => overlapMs(a, b) > 0 || (a.startMs === b.startMs && a.endMs === b.endMs);

/**
 * Each audio input's labelled words, by input index. A word belongs to the input whose
 * audio holds its midpoint; where inputs' audio spans overlap (each on a clock of its
 * own), only to the input of the event that carried it.
 */
export function labelledWordsByInput(timeline: SessionTimeline): Map<number, InputWords> {
  const inputs = timeline.inputs.filter((i): i is AudioInput => i.kind === 'audio');
  const ownClocks = inputs.some((a, i) => inputs.some((b, j) => j > i && a.audioStartMs < b.audioEndMs && b.audioStartMs < a.audioEndMs));
  const holds = (input: AudioInput, midMs: number): boolean => midMs >= input.audioStartMs && midMs < input.audioEndMs;
  const inputOf = (own: number, midMs: number): number | undefined => {
    const mine = inputs.find((i) => i.index === own);
    if (mine && holds(mine, midMs)) return own;
    return ownClocks ? undefined : inputs.find((i) => holds(i, midMs))?.index;
  };
  const byInput = new Map<number, Emission[][]>();
  for (const event of timeline.received) {
    const perInput = new Map<number, Emission[]>();
    for (const w of event.words ?? []) {
      if (w.startMs === undefined || w.endMs === undefined) continue;
      const input = inputOf(event.input, (w.startMs + w.endMs) / 2);
      if (input === undefined) continue;
      const speaker = w.speaker === undefined || UNKNOWN.has(w.speaker) ? undefined : w.speaker;
      const list = perInput.get(input) ?? [];
      list.push({ startMs: w.startMs, endMs: w.endMs, speaker, lasting: !event.provisional });
      perInput.set(input, list);
    }
    for (const [input, words] of perInput) {
      const events = byInput.get(input) ?? [];
      events.push(words);
      byInput.set(input, events);
    }
  }
  return new Map([...byInput].map(([input, events]) => [input, followed(events)]));
}

/**
 * One input's events, each a list of words, followed in arrival order: a word of an event
 * is the earlier word its time overlaps most, taken in order (the words of one event
 * match earlier words in the order they are said, never two of them one word), else a
 * new word. Its times follow its latest emission, so a word re-timed between partial
 * and final is still one word.
 */
function followed(events: readonly Emission[][]): InputWords {
  const words: Followed[] = [];
  const emissions: WordEmission[] = [];
  for (const event of events) {
    const sorted = [...event].sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
    const matched = new Set<Followed>();
    let after = -1;
    const placed = sorted.map((emission) => {
      const at = firstStartingFrom(words, emission.startMs);
      let best: Followed | undefined;
      let bestIndex = -1;
      for (let k = Math.max(after + 1, at - NEIGHBOURS); k < Math.min(words.length, at + NEIGHBOURS); k++) {
        const word = words[k]!;
        if (matched.has(word) || !sameWord(emission, word)) continue;
        if (!best || overlapMs(emission, word) > overlapMs(emission, best)) [best, bestIndex] = [word, k];
      }
      if (best) {
        matched.add(best);
        after = bestIndex;
      }
      return { emission, word: best };
    });
    for (const { emission, word } of placed) {
      const into = word ?? { id: words.length, startMs: emission.startMs, endMs: emission.endMs };
      if (!word) words.push(into);
      into.startMs = emission.startMs;
      into.endMs = emission.endMs;
      if (emission.lasting) into.final = emission;
      if (emission.speaker !== undefined) emissions.push({ word: into.id, speaker: emission.speaker });
    }
    words.sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  }
  const final = words.flatMap((w) => (w.final?.speaker !== undefined ? [{ speaker: w.final.speaker, startMs: w.final.startMs, endMs: w.final.endMs }] : []));
  const scored = new Set(words.filter((w) => w.final?.speaker !== undefined).map((w) => w.id));
  return { final, emissions: emissions.filter((e) => scored.has(e.word as number)) };
}

/** The index of the first word starting at or after `startMs` (a binary search over words sorted by start). */
function firstStartingFrom(words: readonly Followed[], startMs: number): number {
  let [lo, hi] = [0, words.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid]!.startMs < startMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
