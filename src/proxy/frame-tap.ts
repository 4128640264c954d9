import { createRequire } from 'node:module';
import { errorText } from '../session/message-size.js';

/** ws's frame parser, which ws exports but does not type: the part of it used here. */
interface FrameParser {
  write(chunk: Buffer): boolean;
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): this;
  on(event: 'conclude', listener: (code: number, reason: Buffer) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
}
const { Receiver } = createRequire(import.meta.url)('ws') as {
  Receiver: new (options: { isServer: boolean; maxPayload: number }) => FrameParser;
};

export interface TapEvents {
  /** A whole message (text or binary); `t` is when its last bytes arrived. */
  message(t: number, data: Buffer, isBinary: boolean): void;
  /** The side's close frame: its code (1005 when none) and reason. Nothing is read after it. */
  close(t: number, code: number, reason: string): void;
  /** The bytes could not be read as frames (or an event handler threw): nothing more is read. */
  unreadable(t: number, message: string): void;
}

/** Reads one direction's bytes, chunk by chunk as they arrive at `t`. */
export type Tap = (t: number, chunk: Buffer) => void;

/**
 * A passive reader of one direction of a WebSocket connection: the bytes, already
 * forwarded, go through ws's own frame parser (pings and pongs are read and dropped).
 * `masked` is the client's direction: the parser unmasks those frames in place, so a
 * chunk given to it must be one no socket still has to write. It never throws: the
 * first error, its own or an event handler's, stops it for good.
 */
export function frameTap(masked: boolean, maxPayload: number, events: TapEvents): Tap {
  const parser = new Receiver({ isServer: masked, maxPayload });
  let t = 0;
  let reading = true;
  const stop = (err: unknown): void => {
    if (!reading) return;
    reading = false;
    events.unreadable(t, err instanceof Error ? errorText(err, parser, masked ? 'the client' : 'the server') : String(err));
  };
  parser.on('message', (data, isBinary) => events.message(t, data, isBinary));
  parser.on('conclude', (code, reason) => {
    reading = false; // the parser takes nothing after a close frame
    events.close(t, code, reason.toString());
  });
  parser.on('error', stop);
  return (at, chunk) => {
    if (!reading) return;
    t = at;
    try {
      parser.write(chunk);
    } catch (err) {
      stop(err);
    }
  };
}
