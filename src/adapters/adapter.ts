import type { ServerEventKind, TurnDetection } from '../timeline/types.js';

/** A server frame translated into the neutral timeline's vocabulary. */
export interface InterpretedEvent {
  type: string;
  kind: ServerEventKind;
  text?: string;
  code?: string;
  message?: string;
  itemId?: string;
  audioStartMs?: number;
  audioEndMs?: number;
}

/**
 * A protocol adapter translates between one wire dialect and the neutral timeline.
 * It builds frames (as ready-to-send strings, so the hot path only hands them to the
 * socket) and interprets received frames; it never touches sockets or clocks.
 */
export interface ProtocolAdapter {
  readonly name: string;
  /** PCM16 mono sample rate the dialect expects. */
  readonly sampleRate: number;
  /** Who ends turns with these settings. */
  readonly turnDetection: TurnDetection;
  /** The URL to connect to for a `--target` (e.g. with query parameters the dialect needs). */
  connectUrl(target: string): string;
  /** Headers for the upgrade request beyond authentication. */
  upgradeHeaders(): Record<string, string>;
  /** The event kind after which the session may be configured. */
  readonly readyKind: ServerEventKind;
  /** Frames sent once the session is ready (e.g. `session.update`). */
  sessionFrames(): string[];
  /** A `session.update` to send mid-stream, as live applications change settings. */
  sessionUpdateFrame(): string;
  /** Frame that opens a turn, or null when the dialect has none. */
  turnStartFrame(): string | null;
  /** Frame carrying one chunk of PCM16 audio. */
  audioFrame(pcm16: Buffer): string;
  /** Frame that asks for the turn's final transcript (with server turn detection: flushes speech in progress). */
  turnEndFrame(): string;
  /** Interprets one received text frame; throws ProtocolViolation on a malformed one. */
  interpret(data: string): InterpretedEvent;
}

export class ProtocolViolation extends Error {
  override name = 'ProtocolViolation';
}

/** Parses a frame that must be a JSON object with a string `type`. */
export function parseEventObject(data: string): Record<string, unknown> & { type: string } {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new ProtocolViolation(`server sent a frame that is not JSON: ${JSON.stringify(data.slice(0, 80))}`);
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new ProtocolViolation(`server sent a JSON frame without a string "type": ${data.slice(0, 80)}`);
  }
  return value as Record<string, unknown> & { type: string };
}
