/**
 * The neutral event timeline: the one data shape shared by every layer.
 *
 * Protocol adapters translate wire frames into these records, the session runner
 * stamps them on the run's monotonic clock, metrics are pure functions of them, and
 * reports store them so every figure can be recomputed later. All times are
 * milliseconds since the run's clock origin (see `src/clock.ts`).
 */

/** Where end of speech comes from: dataset word timings, an energy detector, or the end of the audio. */
export type EosSource = 'label' | 'vad' | 'audio_end';

/**
 * Who ends turns: the client, with a commit per turn, or the server, whose voice
 * activity detection commits turns out of one continuous audio stream.
 */
export type TurnDetection = 'client' | 'server';

/**
 * One planned turn: an utterance from the dataset and where it sits in the session's
 * audio stream. Positions are ms from the start of the session's audio.
 */
export interface TurnRecord {
  turn: number;
  sampleId: string;
  split: string;
  /** The dataset's reference transcript, for WER; null when it has none. */
  reference: string | null;
  /** Where each reference word ends in the stream (ms), from the dataset's word timings, when it has them. */
  words?: Array<{ word: string; endMs: number }>;
  /** Start of the turn's audio (silence before the utterance included). */
  audioStartMs: number;
  speechStartMs: number;
  /** End of speech, from `eosSource`. */
  speechEndMs: number;
  eosSource: EosSource;
  /** End of the turn's audio (trailing silence included). */
  audioEndMs: number;
}

/** One audio chunk handed to the socket. */
export interface ChunkRecord {
  seq: number;
  turn: number;
  /** When the pacer meant to send it; null when unpaced (`--pace none`). */
  plannedMs: number | null;
  sentMs: number;
  /** Position of the chunk's audio in the session's audio stream, ms. */
  audioStartMs: number;
  audioEndMs: number;
  bytes: number;
}

/** A client commit: `start` opens a turn's generation, `final` asks for the final transcript. */
export interface CommitRecord {
  turn: number;
  kind: 'start' | 'final';
  sentMs: number;
}

/** What a server event means, whatever the dialect called it. */
export type ServerEventKind =
  | 'session_created'
  | 'session_updated'
  | 'speech_started'
  | 'speech_stopped'
  | 'input_committed'
  | 'transcript_delta'
  | 'transcript_final'
  | 'transcript_failed'
  | 'progress'
  | 'error'
  | 'other';

export interface ServerEventRecord {
  /** Receive time, taken before the frame is parsed. */
  t: number;
  /** The wire `type` as sent, for people and for later re-interpretation. */
  type: string;
  kind: ServerEventKind;
  /** The turn being streamed or awaited when the event arrived. */
  turn: number;
  /** The server's id of the input item (conversation item) the event is about. */
  itemId?: string;
  /** Audio positions the server reports (VAD speech start and end; for `progress`, audio consumed so far), ms of the input stream. */
  audioStartMs?: number;
  audioEndMs?: number;
  /** Transcript text carried by the event (may be empty: empty deltas never count as text). */
  text?: string;
  code?: string;
  message?: string;
}

export interface CloseRecord {
  t: number;
  code: number;
  reason: string;
  by: 'client' | 'server';
}

export interface SessionTimeline {
  turnDetection: TurnDetection;
  turns: TurnRecord[];
  /** When the load profile meant the session to start; `connectStartMs` is when it did. */
  plannedStartMs: number;
  connectStartMs: number;
  openMs?: number;
  firstEventMs?: number;
  readyMs?: number;
  chunks: ChunkRecord[];
  commits: CommitRecord[];
  /** Mid-stream `session.update`s sent (not the opening one). */
  updates: Array<{ sentMs: number }>;
  events: ServerEventRecord[];
  close?: CloseRecord;
  bytesSent: number;
  bytesReceived: number;
  framesSent: number;
  framesReceived: number;
}

/** The stage a session was in when it stopped; timeouts name it. */
export type Stage = 'connect' | 'ready' | 'streaming' | 'final' | 'idle';

export type FailureClass =
  | 'connect_refused'
  | 'connect_error'
  | 'upgrade_status'
  | 'tls'
  | 'timeout'
  | 'abnormal_close'
  | 'server_closed'
  | 'server_error'
  | 'protocol_violation';

export interface Failure {
  class: FailureClass;
  stage: Stage;
  message: string;
  /** HTTP status of a refused upgrade. */
  httpStatus?: number;
  /** WebSocket close code. */
  closeCode?: number;
  /** Error code sent by the server. */
  code?: string;
}

/** Why a session was cut: a time limit, Ctrl-C, or the benchmark's error-rate rule. */
export type IncompleteReason = 'max_seconds' | 'interrupted' | 'error_rate';

export type SessionOutcome =
  | { status: 'completed' }
  | { status: 'failed'; failure: Failure }
  | { status: 'incomplete'; reason: IncompleteReason; stage: Stage };

/** Everything recorded about one session: identity, plan, timeline, outcome. */
export interface SessionRecord {
  /** Index of the session within its benchmark, in start order. */
  index: number;
  /** The samples the session was planned to stream, one per turn (even if it failed before streaming). */
  sampleIds: string[];
  split: string;
  /**
   * Set when an earlier run measured this session and a resumed run kept it: that
   * run's start. Its times are moved onto this run's clock, and throughput counts each
   * run's own span, not the gap between them.
   */
  resumedFrom?: string;
  timeline: SessionTimeline;
  outcome: SessionOutcome;
}

/** The same timeline with every time moved by `deltaMs`: to put timelines from different clocks on one. */
export function shiftTimeline(timeline: SessionTimeline, deltaMs: number): SessionTimeline {
  const at = (t: number): number => t + deltaMs;
  return {
    ...timeline,
    plannedStartMs: at(timeline.plannedStartMs),
    connectStartMs: at(timeline.connectStartMs),
    ...(timeline.openMs !== undefined ? { openMs: at(timeline.openMs) } : {}),
    ...(timeline.firstEventMs !== undefined ? { firstEventMs: at(timeline.firstEventMs) } : {}),
    ...(timeline.readyMs !== undefined ? { readyMs: at(timeline.readyMs) } : {}),
    chunks: timeline.chunks.map((c) => ({ ...c, plannedMs: c.plannedMs === null ? null : at(c.plannedMs), sentMs: at(c.sentMs) })),
    commits: timeline.commits.map((c) => ({ ...c, sentMs: at(c.sentMs) })),
    updates: timeline.updates.map((u) => ({ sentMs: at(u.sentMs) })),
    events: timeline.events.map((e) => ({ ...e, t: at(e.t) })),
    ...(timeline.close ? { close: { ...timeline.close, t: at(timeline.close.t) } } : {}),
  };
}
