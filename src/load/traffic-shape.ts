import { soundingSince } from '../timeline/responses.js';
import type { AskedFor, SentFrame, SessionRecord, Task, TurnDetection } from '../timeline/types.js';

/**
 * A traffic shape: what live sessions looked like, without what was said. One JSONL
 * file: a header line, then one line per recorded session (docs/replay.md documents
 * every field). Built from timelines alone, so the proxy's log and any run's log or
 * report give one. Audio is never kept; text only when asked (`keepText`).
 */
export const SHAPE_FORMAT = 'voxbench-traffic-shape';
export const SHAPE_VERSION = 1;

export interface ShapeHeader {
  format: typeof SHAPE_FORMAT;
  version: number;
  /** Where the sessions came from: a proxy's or a run's session log, or a report; the file as given, and the recording's wall-clock start. */
  source: { kind: 'proxy' | 'run'; file: string; startedAt: string };
  sessions: number;
  /** From the first session's start to the last one's end, ms. */
  spanMs: number;
  keepText: boolean;
  /** The recorded traffic's own figures by task, for a replay's report to set beside its own: each metric's p50 and p95 over completed sessions. */
  recorded?: Record<string, RecordedFigures>;
}

export interface RecordedFigures {
  sessions: number;
  errorRate: number | null;
  metrics: Record<string, { p50: number; p95: number; count: number }>;
}

/** One input as sent: audio (its length, chunks and their cadence) or text (its length and rate). Times are ms from the session's start. */
export type ShapeInput =
  | {
      kind: 'audio';
      /** Audio sent for the input, ms of stream. */
      audioMs: number;
      /** The median audio per frame, and the median gap between frames as sent (a real-time client sends a chunk every chunkMs). */
      chunkMs: number;
      cadenceMs: number;
      frames: number;
      /** First and last frame sent. */
      firstMs: number;
      lastMs: number;
      /** Time since the previous input's last frame (the first input: since the session's start). */
      pauseMs: number;
      /** When the client ended the input (its commit), when it did. */
      commitMs?: number;
      /** A barge-in: its first frame went this long after the answer it spoke over began to sound (that answer's first audio). */
      bargeInMs?: number;
      language?: string;
      /** The input's reference, only with `keepText`. */
      text?: string;
    }
  | {
      kind: 'text';
      chars: number;
      firstMs: number;
      lastMs: number;
      pauseMs: number;
      /** Characters per second as sent (null when sent at once). */
      charsPerS: number | null;
      commitMs?: number;
      /** The prompt, only with `keepText`. */
      text?: string;
    };

export interface ShapeSession {
  /** The session's index in the recording. */
  session: number;
  /** Its start on the traffic's clock: ms after the first session's. */
  startMs: number;
  task: Task;
  /** The dialect the proxy metered it with, or the run's; absent where the source did not say. */
  protocol?: string;
  model?: string;
  turnDetection: TurnDetection;
  /** How the recorded session ended. */
  outcome: 'completed' | 'failed' | 'incomplete';
  /** Set when the recording of it has a gap (the proxy stopped metering it before it ended): a replay names and counts it, and plays none of it. */
  gap?: string;
  inputs: ShapeInput[];
  /** Mid-stream settings changes, ms from the session's start. */
  updatesMs: number[];
  /** Inputs spoken over an answer (barge-ins: each input's `bargeInMs`). */
  bargeIns: number;
  /** From its start to its last frame either way, ms. */
  durationMs: number;
  /** What it asked for beyond its inputs: voice and format (speech generation), the audio's sample rate. */
  asked?: AskedFor;
  /** A completed session's values of each latency (ms) measured on it in the recording, by metric (several for per-input metrics). */
  figures?: Record<string, number[]>;
}

export interface SourceSession {
  record: SessionRecord;
  protocol?: string;
  model?: string;
  /** Its values of each latency the recording measured (completed sessions), by metric: what a replay's window sets beside its own. */
  figures?: Record<string, number[]>;
}

const median = (values: number[]): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const ms = (value: number): number => Math.round(value * 100) / 100;

/** The shape of recorded sessions, ordered by start, times relative to the first start. */
export function extractShape(sessions: readonly SourceSession[], keepText: boolean): ShapeSession[] {
  const sorted = [...sessions].sort((a, b) => a.record.timeline.startMs - b.record.timeline.startMs || a.record.index - b.record.index);
  const origin = sorted[0]?.record.timeline.startMs ?? 0;
  return sorted.map((s) => sessionShape(s, origin, keepText));
}

function sessionShape({ record, protocol, model, figures }: SourceSession, origin: number, keepText: boolean): ShapeSession {
  const { timeline, outcome } = record;
  const start = timeline.startMs;
  const rel = (t: number): number => ms(t - start);
  const frames = [...timeline.sent].sort((a, b) => a.t - b.t);
  const inputs: ShapeInput[] = [];
  let previousEnd = start;
  for (const input of timeline.inputs) {
    const sent = frames.filter((f) => f.input === input.index && f.kind !== 'control' && !f.silence);
    // Where the server's VAD ended the speech, the silence after it is the pause before the next input (a replay streams it as such), not the input's audio.
    const speech = input.kind === 'audio' && input.eosSource === 'vad' ? sent.filter((f) => (f.audioStartMs ?? 0) < input.speechEndMs) : sent;
    const media = speech.length > 0 ? speech : sent;
    const commit = frames.find((f) => f.input === input.index && f.control === 'input_end');
    if (media.length === 0) continue; // planned but never sent: nothing of it reached the server
    const first = media[0]!.t;
    const last = media[media.length - 1]!.t;
    const common = { firstMs: rel(first), lastMs: rel(last), pauseMs: ms(first - previousEnd), ...(commit ? { commitMs: rel(commit.t) } : {}) };
    previousEnd = Math.max(last, commit?.t ?? last);
    if (input.kind === 'audio') {
      const lengths = media.map(audioLength);
      const sounding = soundingSince(timeline.received, first);
      inputs.push({
        kind: 'audio',
        audioMs: ms(lengths.reduce((a, b) => a + b, 0)),
        chunkMs: ms(median(lengths)),
        cadenceMs: ms(median(media.slice(1).map((f, i) => f.t - media[i]!.t))),
        frames: media.length,
        ...common,
        ...(sounding !== undefined ? { bargeInMs: ms(first - sounding) } : {}),
        ...(input.language ? { language: input.language } : {}),
        ...(keepText && input.reference !== null ? { text: input.reference } : {}),
      });
    } else {
      const chars = media.reduce((sum, f) => sum + ((f.charEnd ?? 0) - (f.charStart ?? 0)), 0) || input.chars;
      inputs.push({
        kind: 'text',
        chars,
        ...common,
        charsPerS: last > first ? ms((chars * 1000) / (last - first)) : null,
        ...(keepText ? { text: input.text } : {}),
      });
    }
  }
  const ends = [...timeline.sent.map((f) => f.t), ...timeline.received.map((f) => f.t)];
  return {
    session: record.index,
    startMs: ms(start - origin),
    task: timeline.task,
    ...(protocol ? { protocol } : {}),
    ...(model ? { model } : {}),
    turnDetection: timeline.turnDetection,
    ...(timeline.asked ? { asked: timeline.asked } : {}),
    outcome: outcome.status,
    ...(outcome.status === 'incomplete' ? { gap: `the recording stopped before the session ended (${outcome.reason})` } : {}),
    inputs,
    updatesMs: frames.filter((f) => f.control === 'session_update').map((f) => rel(f.t)),
    bargeIns: inputs.filter((input) => input.kind === 'audio' && input.bargeInMs !== undefined).length,
    durationMs: ends.length > 0 ? rel(Math.max(...ends)) : 0,
    ...(figures ? { figures: Object.fromEntries(Object.entries(figures).map(([name, values]) => [name, values.map(ms)])) } : {}),
  };
}

const audioLength = (f: SentFrame): number => (f.audioEndMs ?? 0) - (f.audioStartMs ?? 0);

/** The shape file's text: the header, then a line per session. */
export function shapeText(header: ShapeHeader, sessions: readonly ShapeSession[]): string {
  return [header, ...sessions].map((line) => JSON.stringify(line)).join('\n') + '\n';
}

/** A shape file that cannot be read: the message names the file and line and what to do. */
export class ShapeError extends Error {
  override name = 'ShapeError';
}

/** A shape file's header and sessions, checked line by line. */
export function parseShape(text: string, file: string): { header: ShapeHeader; sessions: ShapeSession[] } {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const parse = (line: string, number: number): unknown => {
    try {
      return JSON.parse(line);
    } catch {
      throw new ShapeError(`${file} line ${number} is not JSON; a shape file is what \`voxbench replay extract\` writes`);
    }
  };
  const header = parse(lines[0] ?? '', 1) as Partial<ShapeHeader> | null;
  if (header?.format !== SHAPE_FORMAT)
    throw new ShapeError(`${file} is not a traffic shape (its first line has no "format": "${SHAPE_FORMAT}"); write one with \`voxbench replay extract\``);
  if (header.version !== SHAPE_VERSION)
    throw new ShapeError(`${file} is a traffic shape of version ${header.version}; this voxbench reads version ${SHAPE_VERSION}: extract it again`);
  const sessions = lines.slice(1).map((line, i) => {
    const session = parse(line, i + 2) as Partial<ShapeSession> | null;
    if (typeof session?.startMs !== 'number' || !Array.isArray(session.inputs) || typeof session.task !== 'string')
      throw new ShapeError(`${file} line ${i + 2} is not a shape session (it needs startMs, task and inputs)`);
    return session as ShapeSession;
  });
  return { header: header as ShapeHeader, sessions };
}
