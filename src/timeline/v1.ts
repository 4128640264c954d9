import type { ReceivedKind, SessionRecord, SessionTimeline, SentFrame } from './types.js';

/**
 * The version 1 timeline (voxbench 0.1: streaming speech-to-text over WebSocket only),
 * kept so old reports still render: `fromV1` maps it mechanically onto version 2 (chunks
 * to sent audio, commits and updates to controls, events to received frames).
 */
export interface V1Timeline {
  turnDetection: 'client' | 'server';
  turns: Array<{
    turn: number;
    sampleId: string;
    split: string;
    reference: string | null;
    words?: Array<{ word: string; endMs: number }>;
    audioStartMs: number;
    speechStartMs: number;
    speechEndMs: number;
    eosSource: 'label' | 'vad' | 'audio_end';
    audioEndMs: number;
  }>;
  plannedStartMs: number;
  connectStartMs: number;
  openMs?: number;
  firstEventMs?: number;
  readyMs?: number;
  chunks: Array<{ seq: number; turn: number; plannedMs: number | null; sentMs: number; audioStartMs: number; audioEndMs: number; bytes: number }>;
  commits: Array<{ turn: number; kind: 'start' | 'final'; sentMs: number }>;
  updates: Array<{ sentMs: number }>;
  events: Array<{
    t: number;
    type: string;
    kind: string;
    turn: number;
    itemId?: string;
    audioStartMs?: number;
    audioEndMs?: number;
    text?: string;
    code?: string;
    message?: string;
  }>;
  close?: { t: number; code: number; reason: string; by: 'client' | 'server' };
  bytesSent: number;
  bytesReceived: number;
  framesSent: number;
  framesReceived: number;
}

const KINDS: Record<string, ReceivedKind> = {
  session_created: 'ready',
  session_updated: 'updated',
  input_committed: 'committed',
  transcript_delta: 'text_delta',
  transcript_final: 'text_final',
  transcript_failed: 'text_failed',
};
const TRANSCRIPT: ReadonlySet<string> = new Set(['transcript_delta', 'transcript_final', 'transcript_failed']);

export function fromV1(v1: V1Timeline): SessionTimeline {
  const sent: SentFrame[] = [
    ...v1.chunks.map((c): SentFrame => ({
      t: c.sentMs,
      input: c.turn,
      bytes: c.bytes,
      kind: 'audio',
      plannedMs: c.plannedMs,
      audioStartMs: c.audioStartMs,
      audioEndMs: c.audioEndMs,
    })),
    ...v1.commits.map((c): SentFrame => ({
      t: c.sentMs,
      input: c.turn,
      bytes: 0,
      kind: 'control',
      control: c.kind === 'start' ? 'input_start' : v1.turnDetection === 'server' ? 'flush' : 'input_end',
    })),
    // Version 1 did not record an update's turn: the one whose audio was last sent before it.
    ...v1.updates.map((u): SentFrame => ({
      t: u.sentMs,
      input: v1.chunks.filter((c) => c.sentMs <= u.sentMs).at(-1)?.turn ?? 0,
      bytes: 0,
      kind: 'control',
      control: 'session_update',
    })),
  ];
  // Stable: a commit sent in the same millisecond as a chunk stays after it, as it was sent.
  sent.sort((a, b) => a.t - b.t);
  return {
    task: 'stt',
    turnDetection: v1.turnDetection,
    plannedStartMs: v1.plannedStartMs,
    startMs: v1.connectStartMs,
    inputs: v1.turns.map(({ turn, ...t }) => ({ kind: 'audio', index: turn, ...t })),
    sent,
    received: v1.events.map(({ turn, kind, ...e }) => ({
      ...e,
      kind: KINDS[kind] ?? (kind as ReceivedKind),
      input: turn,
      ...(TRANSCRIPT.has(kind) ? { channel: 'input_transcript' } : {}),
    })),
    transport: {
      kind: 'websocket',
      ...(v1.openMs !== undefined ? { openMs: v1.openMs } : {}),
      ...(v1.firstEventMs !== undefined ? { firstReceivedMs: v1.firstEventMs } : {}),
      ...(v1.readyMs !== undefined ? { readyMs: v1.readyMs } : {}),
      ...(v1.close ? { close: v1.close } : {}),
    },
    counters: { bytesSent: v1.bytesSent, bytesReceived: v1.bytesReceived, framesSent: v1.framesSent, framesReceived: v1.framesReceived },
  };
}

/** A version 1 session record on the version 2 timeline. */
export function recordFromV1(record: Omit<SessionRecord, 'timeline'> & { timeline: V1Timeline }): SessionRecord {
  return { ...record, timeline: fromV1(record.timeline) };
}
