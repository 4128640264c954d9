import type { Socket } from 'node:net';
import type WebSocket from 'ws';
import { MARKUP, MARKUP_CODE, type Fault, type FaultName, type FaultPoint, type FaultScenario } from './faults.js';
import { writeCloseFrame, writeLargeTextFrame } from './raw-frames.js';

/** The frames of a session's dialect that faults send. */
export interface FaultWire {
  /** The dialect's error event. */
  errorFrame(code: string, message: string): string;
  /** A transcript delta as the JSON around its text, for an oversized frame. */
  deltaFrame(): [head: string, tail: string];
  /** An event the dialect's clients skip, for a flood. */
  noiseFrame(): string;
}

/** A stalled connection is dropped after this long, so stalls never pile up on a long-running server. */
const STALL_DROP_MS = 60_000;
/** A flood sends frames in batches of this many, each once the one before is written, so it buffers one batch at most. */
const FLOOD_BATCH = 1000;

/**
 * The faults of one connection, applied to its session: each point's faults strike the
 * first time the session reaches it, and every frame the session sends (pongs too: the
 * server answers pings itself) goes through `deliver`, which drops it once the server is
 * silent or the connection gone, and holds it while a raw frame is being written.
 */
export class SessionFaults {
  /** A fault closed or reset the connection: the session should ignore what it still receives. */
  gone = false;
  private muted = false;
  private held: Array<() => void> | undefined;
  private readonly reached = new Set<FaultPoint>();
  private readonly used = new Set<FaultName>();
  private stall: NodeJS.Timeout | undefined;

  constructor(
    private readonly faults: FaultScenario,
    private readonly ws: WebSocket,
    private readonly socket: Socket,
    private readonly wire: FaultWire,
  ) {
    ws.on('ping', (data) => this.gate(() => ws.pong(data)));
    ws.on('close', () => clearTimeout(this.stall));
  }

  has(name: FaultName): boolean {
    return this.faults.some((f) => f.name === name);
  }

  /** Whether fault `name` is on and has not struck yet; it now has. */
  once(name: FaultName): boolean {
    if (!this.has(name) || this.used.has(name)) return false;
    this.used.add(name);
    return true;
  }

  /** Strikes the faults due at `point` the first time it is reached; whether the connection is gone. */
  reach(point: FaultPoint): boolean {
    if (!this.reached.has(point)) {
      this.reached.add(point);
      for (const fault of this.faults) if ('at' in fault && fault.at === point) this.strike(fault);
    }
    return this.gone;
  }

  /** markup-strings: the first word the session hears carries the markup. */
  words<T extends { text: string }>(words: T[]): T[] {
    if (words.length === 0 || !this.once('markup-strings')) return words;
    return [{ ...words[0]!, text: `${MARKUP} ${words[0]!.text}` }, ...words.slice(1)];
  }

  /** Sends a frame of the session; `sent` runs once it is written to the socket. */
  deliver(frame: string | Buffer, sent?: () => void): void {
    this.gate(() => this.ws.send(frame, { binary: typeof frame !== 'string' }, sent));
  }

  private gate(send: () => void): void {
    if (this.muted || this.gone || this.ws.readyState !== this.ws.OPEN) return;
    if (this.held) this.held.push(send);
    else send();
  }

  private strike(fault: Extract<Fault, { at: FaultPoint }>): void {
    const markup = this.has('markup-strings');
    switch (fault.name) {
      case 'silent':
        this.muted = true;
        return;
      case 'stall-reads':
        this.ws.pause();
        this.stall = setTimeout(() => this.socket.destroy(), STALL_DROP_MS);
        return;
      case 'close':
        return this.close(fault.code, markup ? MARKUP : 'injected fault');
      case 'tcp-reset': {
        this.gone = true;
        // Under TLS the reset goes to the TCP socket beneath, which Node exposes only as `_parent`.
        const tcp = (this.socket as Socket & { _parent?: Socket | null })._parent ?? this.socket;
        tcp.resetAndDestroy();
        return;
      }
      case 'error-event':
        return this.deliver(this.wire.errorFrame(markup ? `${fault.code}${MARKUP_CODE}` : fault.code, markup ? MARKUP : 'injected fault'));
      case 'malformed-json':
        return this.deliver('{"type":"transcription.delta","delta":"cut of');
      case 'binary-frame':
        return this.deliver(Buffer.from([0xde, 0xad, 0xbe, 0xef]));
      case 'oversized-frame':
        return this.oversized(fault.bytes);
      case 'flood': {
        const frame = this.wire.noiseFrame();
        return this.flood(fault.frames, (sent) => this.deliver(frame, sent));
      }
      case 'ping-flood':
        return this.flood(fault.frames, (sent) => this.gate(() => this.ws.ping(undefined, undefined, sent)));
    }
  }

  /** Ends the connection with `code`, as a fault does; the session then ignores what it still receives. */
  close(code: number, reason: string): void {
    this.gone = true;
    if (code === 1006)
      this.socket.destroy(); // no close frame at all, which is what a peer reports as 1006
    else if (code === 1005)
      this.ws.close(); // a close frame without a code, reported as 1005
    else if (sendable(code)) this.ws.close(code, reason);
    else writeCloseFrame(this.socket, code, reason);
  }

  /** One delta of `bytes` bytes, written past ws; the session's frames wait until it is out. */
  private oversized(bytes: number): void {
    this.gate(() => {
      this.held = [];
      const [head, tail] = this.wire.deltaFrame();
      writeLargeTextFrame(this.socket, bytes, head, tail, () => {
        const held = this.held!;
        this.held = undefined;
        for (const send of held) this.gate(send);
      });
    });
  }

  /** Sends `frames` frames in batches, each batch once the one before is written. */
  private flood(frames: number, send: (sent?: () => void) => void): void {
    let left = frames;
    const batch = (): void => {
      const n = Math.min(left, FLOOD_BATCH);
      left -= n;
      for (let i = 1; i < n; i++) send();
      send(left > 0 ? batch : undefined);
    };
    batch();
  }
}

/** Close codes an endpoint may send (RFC 6455 §7.4), the ones `ws` accepts. */
function sendable(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}
