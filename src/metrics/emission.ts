import type { ReceivedFrame } from '../timeline/types.js';
import type { InputView } from '../views/session-view.js';
import { voxbenchBasic } from './normalizers/voxbench-basic.js';
import { alignWords } from './wer.js';

/**
 * Word emission latency, the true round trip per word (as Picovoice measures it): for
 * each reference word the server got right, from the send time of the chunk holding
 * the word's end (the dataset's word timings) to the receipt of the event that
 * completed that word in the transcript. Words are paired by the WER alignment, so a
 * misrecognized or missing word has no latency rather than a wrong one, and a
 * provisional partial, which later text replaces, delivers no word. Pairing word by
 * word with timings needs no number or spelling rules, so it always uses
 * voxbench-basic-2, whatever normalizer scores the input.
 */
export function wordEmissionLatencies(input: InputView): number[] {
  const timings = input.plan?.kind === 'audio' ? input.plan.words : undefined;
  if (!timings || timings.length === 0) return [];
  const reference = timings.flatMap((w) => wordsOf(w.word).map((word) => ({ word, endMs: w.endMs })));
  const { events, textEvents } = input.transcript;
  const heard = events.some((e) => e.provisional) ? hypothesisWords(events) : timedWords(textEvents);
  const latencies: number[] = [];
  for (const pair of alignWords(
    reference.map((w) => w.word),
    heard.map((w) => w.word),
  )) {
    if (pair.op !== 'match') continue;
    const end = reference[pair.ref]!.endMs;
    const chunk = input.frameAt(end);
    if (chunk) latencies.push(heard[pair.hyp]!.t - chunk.t);
  }
  return latencies;
}

/**
 * A word's (or token's) words by voxbench-basic-2, split once per distinct word: every
 * session of a corpus repeats its reference words, and a report measures 100,000s of
 * sessions (issue 38). The lists are shared, never changed; up to WORDS distinct ones kept.
 */
function wordsOf(word: string): readonly string[] {
  let words = splitOnce.get(word);
  if (!words) {
    words = voxbenchBasic(word);
    if (splitOnce.size < WORDS) splitOnce.set(word, words);
  }
  return words;
}
const splitOnce = new Map<string, string[]>();
const WORDS = 100_000;

/**
 * The transcript's words, each with the receive time of the event that delivered its
 * last character; a word may be split across deltas ("Hel", "lo").
 */
function timedWords(events: readonly ReceivedFrame[]): Array<{ word: string; t: number }> {
  const words: Array<{ word: string; t: number }> = [];
  let token = '';
  let t = 0;
  const flush = (): void => {
    for (const word of wordsOf(token)) words.push({ word, t });
    token = '';
  };
  for (const event of events) {
    for (const part of (event.text ?? '').split(/(\s+)/)) {
      if (part === '') continue;
      if (/^\s+$/.test(part)) flush();
      else {
        token += part;
        t = event.t;
      }
    }
  }
  flush();
  return words;
}

/**
 * The transcript's words where partials are provisional hypotheses of the text after the
 * last lasting text (each replaces the one before): a word keeps the time it first
 * appeared as long as every hypothesis after it agrees with it and the words before it;
 * a word revised, or first seen in lasting text, is timed by the event that settled it.
 * Lasting deltas settle the head of the hypothesis (Deepgram's `is_final` ranges,
 * Speechmatics' `AddTranscript`); a final with text restates everything since the last
 * final (Scribe's committed transcript), and one without closes what lasting deltas said.
 */
function hypothesisWords(events: readonly ReceivedFrame[]): Array<{ word: string; t: number }> {
  const settled: Array<{ word: string; t: number }> = [];
  let lasting: Array<{ word: string; t: number }> = [];
  let hypothesis: Array<{ word: string; t: number }> = [];
  const timed = (text: string | undefined, t: number, shown: ReadonlyArray<{ word: string; t: number }>): Array<{ word: string; t: number }> => {
    let agreeing = true;
    return voxbenchBasic(text ?? '').map((word, i) => {
      agreeing &&= shown[i]?.word === word;
      return agreeing ? shown[i]! : { word, t };
    });
  };
  for (const event of events) {
    if (event.kind === 'text_final') {
      settled.push(...(event.text === undefined ? lasting : timed(event.text, event.t, [...lasting, ...hypothesis])));
      lasting = [];
      hypothesis = [];
    } else if (event.kind === 'text_delta') {
      const next = timed(event.text, event.t, hypothesis);
      if (event.provisional) hypothesis = next;
      else {
        lasting.push(...next);
        hypothesis = hypothesis.slice(next.length);
      }
    }
  }
  return [...settled, ...lasting, ...hypothesis];
}
