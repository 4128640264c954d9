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

/** One word as an event carried it: its text as compared, its speaker, or none (no label, or `UU`). */
interface Emission {
  text: string;
  startMs: number;
  endMs: number;
  speaker: string | undefined;
  lasting: boolean;
}

/** A word followed across its emissions, as it was last sent. */
interface Followed {
  id: number;
  text: string;
  startMs: number;
  endMs: number;
  /** Whether its last emission was provisional: a partial the server may still revise, text and all. */
  open: boolean;
  /** Its last lasting emission. */
  final?: Emission;
}

/** How many followed words either side of a word's place in time may be the same word (a word overlaps its neighbours at most). */
const NEIGHBOURS = 4;

const overlapMs = (a: { startMs: number; endMs: number }, b: { startMs: number; endMs: number }): number =>
  Math.min(a.endMs, b.endMs) - Math.max(a.startMs, b.startMs);
const lengthMs = (a: { startMs: number; endMs: number }): number => a.endMs - a.startMs;
const byStart = (a: Followed, b: Followed): number => a.startMs - b.startMs || a.endMs - b.endMs;
/** Text as compared across revisions: case and punctuation aside ("Hello," is "hello"). */
const comparable = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * Whether an emission sends `word` again. The same text whose time overlaps (or, without
 * length, is the same) is the same word, moved or not; a word still provisional may also
 * change its text, so it is the same word where its time and the emission's overlap by
 * more than half the shorter of the two, which a neighbour's word in overlapped speech
 * does not.
 */
function sendsAgain(emission: Emission, word: Followed, byText: boolean): boolean {
  const overlap = overlapMs(emission, word);
  if (byText) return emission.text === word.text && (overlap > 0 || (emission.startMs === word.startMs && emission.endMs === word.endMs));
  return word.open && overlap > Math.min(lengthMs(emission), lengthMs(word)) / 2;
}

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
      list.push({ text: comparable(w.text), startMs: w.startMs, endMs: w.endMs, speaker, lasting: !event.provisional });
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
 * One input's events, each a list of words, followed in arrival order: each word of an
 * event is the earlier word it sends again (`sendsAgain`; the one its time overlaps most,
 * same texts first, never two of one event one word), else a new word. A word's times
 * follow its latest emission, so a word re-timed between partial and final is still one
 * word, and its label changes are counted.
 */
function followed(events: readonly Emission[][]): InputWords {
  const words: Followed[] = [];
  const emissions: WordEmission[] = [];
  for (const event of events) {
    const matched = new Map<Emission, Followed>();
    const taken = new Set<Followed>();
    for (const byText of [true, false]) {
      for (const emission of event) {
        if (matched.has(emission)) continue;
        const at = firstStartingFrom(words, emission.startMs);
        let best: Followed | undefined;
        for (let k = Math.max(0, at - NEIGHBOURS); k < Math.min(words.length, at + NEIGHBOURS); k++) {
          const word = words[k]!;
          if (taken.has(word) || !sendsAgain(emission, word, byText)) continue;
          if (!best || overlapMs(emission, word) > overlapMs(emission, best)) best = word;
        }
        if (best) {
          matched.set(emission, best);
          taken.add(best);
        }
      }
    }
    let moved = false;
    for (const emission of event) {
      const again = matched.get(emission);
      const word = again ?? { id: words.length, text: emission.text, startMs: emission.startMs, endMs: emission.endMs, open: true };
      if (!again) words.push(word);
      moved ||= !again || word.startMs !== emission.startMs || word.endMs !== emission.endMs;
      Object.assign(word, { text: emission.text, startMs: emission.startMs, endMs: emission.endMs, open: !emission.lasting });
      if (emission.lasting) word.final = emission;
      if (emission.speaker !== undefined) emissions.push({ word: word.id, speaker: emission.speaker });
    }
    // Words stay sorted by start for the search; a stream mostly adds them in order, so a sort is rarely needed.
    if (moved && words.some((w, i) => i > 0 && byStart(words[i - 1]!, w) > 0)) words.sort(byStart);
  }
  const scored = words.filter((w) => w.final?.speaker !== undefined);
  const ids = new Set(scored.map((w) => w.id));
  return {
    final: scored.map((w) => ({ speaker: w.final!.speaker!, startMs: w.final!.startMs, endMs: w.final!.endMs })),
    emissions: emissions.filter((e) => ids.has(e.word as number)),
  };
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
