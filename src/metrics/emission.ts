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
  const reference = timings.flatMap((w) => voxbenchBasic(w.word).map((word) => ({ word, endMs: w.endMs })));
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
 * The transcript's words, each with the receive time of the event that delivered its
 * last character; a word may be split across deltas ("Hel", "lo").
 */
function timedWords(events: readonly ReceivedFrame[]): Array<{ word: string; t: number }> {
  const words: Array<{ word: string; t: number }> = [];
  let token = '';
  let t = 0;
  const flush = (): void => {
    for (const word of voxbenchBasic(token)) words.push({ word, t });
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
 * Lasting text settles the head of the hypothesis (Speechmatics' `AddTranscript`), or,
 * as a final, the whole of it (Scribe's committed transcript); a final with no text
 * closes what lasting text already settled.
 */
function hypothesisWords(events: readonly ReceivedFrame[]): Array<{ word: string; t: number }> {
  const settled: Array<{ word: string; t: number }> = [];
  let hypothesis: Array<{ word: string; t: number }> = [];
  for (const event of events) {
    if (event.kind !== 'text_delta' && event.kind !== 'text_final') continue;
    let agreeing = true;
    const next = voxbenchBasic(event.text ?? '').map((word, i) => {
      agreeing &&= hypothesis[i]?.word === word;
      return agreeing ? hypothesis[i]! : { word, t: event.t };
    });
    if (event.provisional) hypothesis = next;
    else {
      settled.push(...next);
      hypothesis = event.kind === 'text_final' ? [] : hypothesis.slice(next.length);
    }
  }
  return [...settled, ...hypothesis];
}
