/**
 * The neutral event timeline: the one data shape shared by every layer.
 *
 * Protocol adapters translate wire frames into these records, the session runner
 * stamps them on the run's monotonic clock, metrics are pure functions of them, and
 * reports store them so every figure can be recomputed later. All times are
 * milliseconds since the run's clock origin (see `src/clock.ts`).
 */

/** One audio chunk handed to the socket. */
export interface ChunkRecord {
  seq: number;
  turn: number;
  /** When the pacer meant to send it; null when unpaced (`--pace none`). */
  plannedMs: number | null;
  sentMs: number;
  /** Position of the chunk's audio inside the turn's audio, in ms. */
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
  | 'transcript_delta'
  | 'transcript_final'
  | 'error'
  | 'other';

export interface ServerEventRecord {
  /** Receive time, taken before the frame is parsed. */
  t: number;
  /** The wire `type` as sent, for people and for later re-interpretation. */
  type: string;
  kind: ServerEventKind;
  /** The turn in progress when the event arrived. */
  turn: number;
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
  connectStartMs: number;
  openMs?: number;
  firstEventMs?: number;
  readyMs?: number;
  chunks: ChunkRecord[];
  commits: CommitRecord[];
  events: ServerEventRecord[];
  close?: CloseRecord;
  bytesSent: number;
  bytesReceived: number;
  framesSent: number;
  framesReceived: number;
}

/** The stage a session was in when it stopped; timeouts name it. */
export type Stage = 'connect' | 'ready' | 'streaming' | 'final';

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

export type IncompleteReason = 'max_seconds' | 'interrupted';

export type SessionOutcome =
  | { status: 'completed' }
  | { status: 'failed'; failure: Failure }
  | { status: 'incomplete'; reason: IncompleteReason; stage: Stage };

/** Everything recorded about one session: identity, plan, timeline, outcome. */
export interface SessionRecord {
  /** Index of the session within its benchmark, in start order. */
  index: number;
  sampleId: string;
  split: string;
  plannedStartMs: number;
  timeline: SessionTimeline;
  outcome: SessionOutcome;
}
