import { splitWords } from '../../util/words.js';
import { seededRandom } from '../../util/random.js';
import { faultOf, type FaultScenario } from '../faults/faults.js';
import { kneeSlowdown } from './latency-model.js';
import { toneHz, wordTones } from './speech-tones.js';

/**
 * The simulated speech server's voice and timing: deterministic speech-like audio for
 * a text (one tone burst per word, a pure tone per character, pauses between words and
 * longer ones at sentence ends; see speech-tones.ts, which the simulated transcription
 * server reads back), cut into chunks, each due at a time a latency model gives.
 */
export interface VoiceOptions {
  /** Speaking rate, characters per second (a word's letters and its opening tone; the pause after it is one more). Default 14. */
  charsPerSecond: number;
  /** Silence before the first word, ms (what `ttfa_audible_ms` finds). Default 0. */
  leadingSilenceMs: number;
  /** Peak level, 0-1. Default 0.3. */
  amplitude: number;
}

export const DEFAULT_VOICE: VoiceOptions = { charsPerSecond: 14, leadingSilenceMs: 0, amplitude: 0.3 };

/** Shortest character: below it the transcription side could not read a tone (three 10 ms frames). */
const MIN_CHAR_MS = 30;
/** Shortest pause between words: two of the recognizer's 20 ms energy frames always fit in it. */
const MIN_GAP_MS = 60;
/** Fade in and out of each word, ms, so words start and end without a click. */
const FADE_MS = 5;

/** Audio of `text` as PCM16 at `sampleRate`; `speed` scales the voice's rate (OpenAI's `speed`). */
export function synthesizeSpeech(text: string, sampleRate: number, voice: VoiceOptions = DEFAULT_VOICE, speed = 1): Buffer {
  const charMs = Math.max(MIN_CHAR_MS, 1000 / (voice.charsPerSecond * speed));
  const gapMs = Math.max(MIN_GAP_MS, charMs);
  const perMs = sampleRate / 1000;
  const pieces: Array<{ tones: number[]; pauseMs: number }> = [];
  for (const token of text.split(/\s+/)) {
    const words = splitWords(token);
    // A pause after each word, twice as long after , ; : and four times after . ! ?
    const pause = /[.!?]["')\]]*$/.test(token) ? 4 : /[,;:]["')\]]*$/.test(token) ? 2 : 1;
    words.forEach((word, i) => pieces.push({ tones: wordTones(word), pauseMs: gapMs * (i === words.length - 1 ? pause : 1) }));
  }
  const charSamples = Math.round(charMs * perMs);
  const lead = Math.round(voice.leadingSilenceMs * perMs);
  const total = lead + pieces.reduce((n, p) => n + p.tones.length * charSamples + Math.round(p.pauseMs * perMs), 0);
  const pcm = Buffer.alloc(total * 2);
  const fade = Math.round(FADE_MS * perMs);
  const peak = voice.amplitude * 32767;
  let at = lead;
  for (const [index, piece] of pieces.entries()) {
    const length = piece.tones.length * charSamples;
    let phase = 0;
    for (let i = 0; i < length; i++) {
      phase += (2 * Math.PI * toneHz(piece.tones[Math.floor(i / charSamples)]!)) / sampleRate;
      const envelope = Math.min(1, (i + 1) / fade, (length - i) / fade);
      pcm.writeInt16LE(Math.round(peak * envelope * Math.sin(phase)), (at + i) * 2);
    }
    // The last pause is trailing silence only up to the last word's end: the stream ends with its speech.
    at += length + (index === pieces.length - 1 ? 0 : Math.round(piece.pauseMs * perMs));
  }
  return pcm.subarray(0, at * 2);
}

/** Renderings kept: a benchmark's texts are few and repeat, so its sessions share them. */
const RENDERED_LIMIT = 256;
const rendered = new Map<string, Buffer>();

/**
 * `synthesizeSpeech`, rendered once per text, rate, voice and speed and then shared:
 * rendering is most of what a request costs the server, and at a thousand sessions it
 * would be the bottleneck the benchmark measures. The oldest rendering goes past the
 * limit. The audio is shared, so it must never be written to.
 */
export function renderedSpeech(text: string, sampleRate: number, voice: VoiceOptions = DEFAULT_VOICE, speed = 1): Buffer {
  const key = `${sampleRate}|${speed}|${voice.charsPerSecond}|${voice.leadingSilenceMs}|${voice.amplitude}|${text}`;
  let pcm = rendered.get(key);
  if (!pcm) {
    pcm = synthesizeSpeech(text, sampleRate, voice, speed);
    if (rendered.size >= RENDERED_LIMIT) rendered.delete(rendered.keys().next().value!);
    rendered.set(key, pcm);
  }
  return pcm;
}

/** A rendering's chunks, cut once per chunk size: the same pieces each time, so their encodings are kept too. */
const cuts = new WeakMap<Buffer, { chunkBytes: number; pieces: Buffer[] }>();

function chunksOf(pcm: Buffer, chunkBytes: number): Buffer[] {
  const cut = cuts.get(pcm);
  if (cut?.chunkBytes === chunkBytes) return cut.pieces;
  const pieces: Buffer[] = [];
  for (let start = 0; start < pcm.length; start += chunkBytes) pieces.push(pcm.subarray(start, start + chunkBytes));
  cuts.set(pcm, { chunkBytes, pieces });
  return pieces;
}

const encoded = new WeakMap<Buffer, string>();

/** A chunk's base64, encoded once however many sessions send it (kept while the chunk is). */
export function base64Of(piece: Buffer): string {
  let b64 = encoded.get(piece);
  if (b64 === undefined) encoded.set(piece, (b64 = piece.toString('base64')));
  return b64;
}

export interface SpeechLatencyOptions {
  /** Request to the first chunk being ready, ms. Default 150. */
  firstAudioMs: number;
  /** Generation time per second of audio after the first chunk (real-time factor; below 1 keeps up). Default 0.25. */
  rtf: number;
  /** Uniform jitter on each chunk's time, +/- ms. Default 10. */
  jitterMs: number;
  /** Sessions served at full speed; beyond it every time is scaled by (open/capacity)^2. Default 16. */
  capacity: number;
  /** Audio per chunk, ms. Default 100. */
  chunkMs: number;
  /** Seed of the jitter generator. Default 1. */
  seed: number;
}

export const DEFAULT_SPEECH_LATENCY: SpeechLatencyOptions = { firstAudioMs: 150, rtf: 0.25, jitterMs: 10, capacity: 16, chunkMs: 100, seed: 1 };

/** How a stream of speech ends: with its last chunk, with an error event, or with the connection dropped. */
export type SpeechEnd = { kind: 'done' } | { kind: 'error'; code: string } | { kind: 'cut' };

/** One response's audio, chunk by chunk, each with when it is due after the request (ms). */
export interface SpeechPlan {
  sampleRate: number;
  chunks: Array<{ pcm: Buffer; atMs: number }>;
  end: SpeechEnd;
  /** When the end is due after the request, ms. */
  endAtMs: number;
}

/** One server's speech timing; its jitter generator is shared by every session, as the transcription model's is. */
export class SpeechLatencyModel {
  private readonly random: () => number;

  constructor(readonly options: SpeechLatencyOptions) {
    this.random = seededRandom(options.seed);
  }

  /**
   * Plans the response to one request with `openSessions` open (this one included):
   * the first chunk at the first-audio delay, each next one its audio's duration times
   * the real-time factor later, all slowed past the capacity knee, with the session's
   * faults applied (stall-after, slow-chunks, cut-stream, error-event at a point).
   */
  plan(pcm: Buffer, sampleRate: number, openSessions: number, faults: FaultScenario = []): SpeechPlan {
    const { firstAudioMs, rtf, jitterMs, chunkMs } = this.options;
    const slow = kneeSlowdown(openSessions, this.options.capacity) * (faultOf(faults, 'slow-chunks')?.factor ?? 1);
    const stall = faultOf(faults, 'stall-after');
    const cut = faultOf(faults, 'cut-stream');
    const error = faultOf(faults, 'error-event');
    const chunkBytes = Math.max(2, Math.round((chunkMs * sampleRate) / 1000) * 2);
    const chunks: SpeechPlan['chunks'] = [];
    let due = firstAudioMs * slow;
    let last = 0;
    let stalled = false;
    for (const [k, piece] of chunksOf(pcm, chunkBytes).entries()) {
      const start = k * chunkBytes;
      const outMs = ((start / 2) * 1000) / sampleRate;
      if (cut && outMs >= cut.afterMs) return { sampleRate, chunks, end: { kind: 'cut' }, endAtMs: last };
      if (stall && !stalled && outMs >= stall.afterMs) {
        stalled = true;
        due += stall.stallMs;
      }
      if (start > 0) due += (piece.length / 2 / sampleRate) * 1000 * rtf * slow;
      last = Math.max(last, due + (this.random() * 2 - 1) * jitterMs);
      chunks.push({ pcm: piece, atMs: last });
      if (error?.at === 'open' || (error?.at === 'streaming' && chunks.length === 1)) {
        if (error.at === 'open') chunks.length = 0;
        return { sampleRate, chunks, end: { kind: 'error', code: error.code }, endAtMs: error.at === 'open' ? firstAudioMs * slow : last };
      }
    }
    if (error) return { sampleRate, chunks, end: { kind: 'error', code: error.code }, endAtMs: last };
    if (cut) return { sampleRate, chunks, end: { kind: 'cut' }, endAtMs: last };
    return { sampleRate, chunks, end: { kind: 'done' }, endAtMs: last };
  }
}

/** What a playing plan calls; `chunk` and `end` run at their due times. */
export interface SpeechSink {
  chunk(pcm: Buffer, index: number): void;
  end(end: SpeechEnd): void;
}

/**
 * Plays a plan from `startMs` (performance.now() of the request) against absolute
 * deadlines, so timer lateness never accumulates. Returns a function that stops it.
 */
export function playSpeech(plan: SpeechPlan, startMs: number, sink: SpeechSink): () => void {
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  const step = (): void => {
    const now = performance.now() - startMs;
    while (next < plan.chunks.length && plan.chunks[next]!.atMs <= now) sink.chunk(plan.chunks[next]!.pcm, next++);
    if (next === plan.chunks.length && plan.endAtMs <= now) {
      timer = undefined;
      return sink.end(plan.end);
    }
    const due = next < plan.chunks.length ? plan.chunks[next]!.atMs : plan.endAtMs;
    timer = setTimeout(step, Math.max(0, due - now));
  };
  step();
  return () => clearTimeout(timer);
}
