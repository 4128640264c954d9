import { isSpeechTask, type Task } from '../timeline/types.js';
import { seededRandom } from '../util/random.js';
import type { ShapeInput, ShapeSession } from './traffic-shape.js';

/**
 * A replay of a traffic shape (traffic-shape.ts): a pure schedule of who starts when,
 * and for each session what to send in place of what the users said. Arrivals keep
 * the recording's spacing divided by `speed`; `scale` copies of each recorded session
 * are spread over the gap to the next arrival, as the arrivals are; a window keeps
 * the sessions that started within it. Each input is filled with a corpus sample of
 * matching length (and language, where both say), chosen by a seeded draw.
 */
export interface ReplayOptions {
  /** Arrivals compressed by this factor (2: twice the traffic); each session's own timing is kept. */
  speed: number;
  /** Sessions played per recorded one (a whole number). */
  scale: number;
  /** The part of the recording replayed: sessions that started in [fromMs, toMs) on the traffic's clock. */
  window?: { fromMs: number; toMs: number };
  seed: number;
}

/** A corpus item to fill an input with: a recording's length, or a prompt's. */
export interface Candidate {
  id: string;
  /** Audio: its length, ms; text: its characters. */
  size: number;
  language?: string;
}

/** How far a sample's length may be from the recorded input's: this share of it, or MATCH_FLOOR_MS, whichever is larger. */
export const MATCH_TOLERANCE = 0.15;
export const MATCH_FLOOR_MS = 300;

/** What a replayed session sends: a sample per recorded input, with the recorded chunk size, cadence and pauses. */
export interface ReplayedSession {
  /** The recorded session it plays, and which of its `scale` copies it is. */
  session: number;
  copy: number;
  /** Its start, ms from the level's start. */
  startMs: number;
  sampleIds: string[];
  /** Audio per frame and the gap between frames as recorded (its first input's); absent for text. */
  chunkMs?: number;
  cadenceMs?: number;
  /** Pause before each input after the first, as streamed silence, ms. */
  pausesMs: number[];
  /** Text inputs: the rate each was sent at, characters per second (null: sent at once). */
  charsPerS?: Array<number | null>;
  /** Speech generation: the voice its recording asked for, which it asks for too. */
  voice?: string;
  /** The recorded mid-stream settings changes: ms after its first frame. */
  updatesAfterMs: number[];
  /** Per input, a recorded barge-in: ms after the answer it spoke over began to sound (null: not one). Absent when none. */
  bargeInsMs?: Array<number | null>;
}

export type SkipReason = 'dialect' | 'unmatched' | 'gap';

/** A recorded session the replay does not play, named with why. */
export interface ReplaySkip {
  session: number;
  reason: SkipReason;
  detail: string;
}

export interface Replay {
  sessions: ReplayedSession[];
  skipped: ReplaySkip[];
  /** Recorded sessions in the window (played or skipped), by start. */
  recorded: ShapeSession[];
}

/**
 * Plans a replay of `sessions` against a target whose dialect does `task`, filling
 * inputs from `candidates` (recordings for audio inputs, prompts for text ones).
 */
export function planReplay(sessions: readonly ShapeSession[], task: Task, candidates: readonly Candidate[], options: ReplayOptions): Replay {
  const { fromMs, toMs } = options.window ?? { fromMs: 0, toMs: Infinity };
  const inWindow = [...sessions].filter((s) => s.startMs >= fromMs && s.startMs < toMs).sort((a, b) => a.startMs - b.startMs);
  const random = seededRandom(options.seed);
  const skipped: ReplaySkip[] = [];
  const playable: Array<{ shape: ShapeSession; sampleIds: string[] }> = [];
  for (const shape of inWindow) {
    if (shape.gap) skipped.push({ session: shape.session, reason: 'gap', detail: shape.gap });
    else if (shape.task !== task)
      skipped.push({
        session: shape.session,
        reason: 'dialect',
        detail: `recorded as ${shape.protocol ?? shape.task} (${shape.task}); the target's dialect does ${task}`,
      });
    else if (shape.inputs.length === 0)
      skipped.push({ session: shape.session, reason: 'unmatched', detail: `it ended (${shape.outcome}) before it sent any input: there is nothing to fill` });
    else {
      const match = matchInputs(shape.inputs, candidates, random);
      if (typeof match === 'string') skipped.push({ session: shape.session, reason: 'unmatched', detail: match });
      else playable.push({ shape, sampleIds: match });
    }
  }
  const span = inWindow.length > 1 ? inWindow[inWindow.length - 1]!.startMs - inWindow[0]!.startMs : 0;
  const meanGap = inWindow.length > 1 ? span / (inWindow.length - 1) : 0;
  const replayed: ReplayedSession[] = [];
  for (const { shape, sampleIds } of playable) {
    const next = inWindow.find((s) => s.startMs > shape.startMs);
    const gap = (next ? next.startMs - shape.startMs : meanGap) / options.speed;
    const first = shape.inputs[0];
    const audio = first?.kind === 'audio' ? first : undefined;
    const bargeIns = shape.inputs.map((input) => (input.kind === 'audio' && input.bargeInMs !== undefined ? input.bargeInMs : null));
    for (let copy = 0; copy < options.scale; copy++) {
      replayed.push({
        session: shape.session,
        copy,
        startMs: (shape.startMs - fromMs) / options.speed + (copy * gap) / options.scale,
        sampleIds,
        ...(audio ? { chunkMs: audio.chunkMs, cadenceMs: audio.cadenceMs } : {}),
        pausesMs: shape.inputs.slice(1).map(pauseOf),
        ...(first?.kind === 'text' ? { charsPerS: shape.inputs.map((input) => (input.kind === 'text' ? input.charsPerS : null)) } : {}),
        ...(isSpeechTask(task) && shape.asked?.voice !== undefined ? { voice: shape.asked.voice } : {}),
        updatesAfterMs: first ? shape.updatesMs.map((t) => Math.max(0, t - first.firstMs)) : [],
        ...(bargeIns.some((ms) => ms !== null) ? { bargeInsMs: bargeIns } : {}),
      });
    }
  }
  replayed.sort((a, b) => a.startMs - b.startMs || a.copy - b.copy);
  return { sessions: replayed, skipped, recorded: inWindow };
}

/** A recorded pause, as silence to stream: what the client left between one input's end and the next beyond a frame's gap (a barge-in waits on the answer instead). */
function pauseOf(input: ShapeInput): number {
  if (input.kind === 'audio' && input.bargeInMs !== undefined) return 0;
  const frameGap = input.kind === 'audio' ? input.cadenceMs : 0;
  return input.pauseMs > 2 * frameGap ? Math.round(input.pauseMs) : 0;
}

/** A sample for each input, or why some input has none: the nearest in length within the tolerance (and in its language), drawn among equals. */
function matchInputs(inputs: readonly ShapeInput[], candidates: readonly Candidate[], random: () => number): string[] | string {
  const ids: string[] = [];
  for (const [k, input] of inputs.entries()) {
    const size = input.kind === 'audio' ? input.audioMs : input.chars;
    const language = input.kind === 'audio' ? input.language : undefined;
    const slack = input.kind === 'audio' ? Math.max(MATCH_FLOOR_MS, size * MATCH_TOLERANCE) : Math.max(20, size * MATCH_TOLERANCE);
    const fit = candidates.filter(
      (c) => Math.abs(c.size - size) <= slack && (language === undefined || c.language === undefined || sameLanguage(c.language, language)),
    );
    if (fit.length === 0) {
      const unit = input.kind === 'audio' ? 'ms of audio' : 'characters';
      return `input ${k} (${Math.round(size)} ${unit}${language ? `, ${language}` : ''}) has no sample in the corpus within ${Math.round(slack)} ${unit.split(' ')[0]} of its length`;
    }
    const best = Math.min(...fit.map((c) => Math.abs(c.size - size)));
    // Samples within a tenth of the slack of the best are equals: the seed chooses among them, so a corpus with many fits spreads the load over them.
    const equals = fit.filter((c) => Math.abs(c.size - size) <= best + slack / 10);
    ids.push(equals[Math.floor(random() * equals.length)]!.id);
  }
  return ids;
}

const sameLanguage = (a: string, b: string): boolean => a.toLowerCase().split(/[-_]/)[0] === b.toLowerCase().split(/[-_]/)[0];

/** The replay's level label: `replay 2x`, with its scale and window when given. */
export function replayLabel(options: Pick<ReplayOptions, 'speed' | 'scale' | 'window'>): string {
  const window = options.window ? ` ${seconds(options.window.fromMs)}-${Number.isFinite(options.window.toMs) ? seconds(options.window.toMs) : 'end'}` : '';
  return `replay${window} ${options.speed}x${options.scale > 1 ? ` scale ${options.scale}` : ''}`;
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10}s`;
