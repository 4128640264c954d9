import type { SpeechSpan, WordTiming } from './dataset.js';

/**
 * Word timings as datasets give them: `[{word, start, end}]`, seconds. `label` names
 * the file or field in the error.
 */
export function parseWordTimings(value: unknown, label: string): WordTiming[] {
  const ok = (w: unknown): w is WordTiming =>
    isSpan(w) && typeof (w as WordTiming).word === 'string' && ['string', 'undefined'].includes(typeof (w as WordTiming).speaker);
  if (!Array.isArray(value) || !value.every(ok)) {
    throw new Error(`${label} must be a JSON array of {"word", "start", "end"} with end >= start (seconds)`);
  }
  return value.map(({ word, start, end, speaker }) => ({ word, start, end, ...(speaker !== undefined ? { speaker } : {}) }));
}

/** Speech segments as datasets give them: `[{start, end}]`, seconds. */
export function parseSegments(value: unknown, label: string): SpeechSpan[] {
  if (!Array.isArray(value) || !value.every(isSpan)) {
    throw new Error(`${label} must be a JSON array of {"start", "end"} with end >= start (seconds)`);
  }
  return value.map(({ start, end }) => ({ start, end }));
}

function isSpan(value: unknown): value is SpeechSpan {
  const span = value as SpeechSpan;
  return (
    typeof value === 'object' && value !== null && typeof span.start === 'number' && typeof span.end === 'number' && span.start >= 0 && span.end >= span.start
  );
}

/** Why timings do not fit audio of `durationS` seconds, or null when they do. */
export function timingsBeyondAudio(spans: SpeechSpan[], durationS: number, label: string): string | null {
  const last = spans.reduce((end, s) => Math.max(end, s.end), 0);
  // 10 ms of slack: timings are often rounded to centiseconds.
  return last > durationS + 0.01 ? `${label} end at ${last.toFixed(2)} s but the audio is ${durationS.toFixed(2)} s long` : null;
}
