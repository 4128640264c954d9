import type { PreparedChunk } from './prepare.js';
import { SendLoop } from './ws-send-loop.js';
import type { WebSocketSession } from './ws-session.js';

/** Sends not yet written to the socket allowed when unpaced, so the socket never buffers without bound. */
const UNPACED_WINDOW = 8;
export const DEFAULT_ACK_WINDOW_MS = 1000;
/** How long an unpaced session waits for a first acknowledgement before treating the server as one that sends none. */
const ACK_PROBE_MS = 250;

/**
 * Streams one input's audio as fast as the socket takes it, within two windows: at most
 * UNPACED_WINDOW chunks handed to the socket and not yet written, and (when the server
 * acknowledges audio) at most `ackWindowMs` of audio not yet acknowledged. A server
 * that stops acknowledging, or a socket that stops taking audio, fails the session
 * after the final timeout rather than holding it forever.
 */
export class UnpacedAudio extends SendLoop {
  /** The next chunk to send. */
  private k = 0;
  /** Chunks handed to the socket and not yet written. */
  private inFlight = 0;
  /** Where the audio sent so far ends, ms of the stream. */
  private sentEndMs: number;
  private readonly windowMs: number;
  private readonly server: { known?: boolean };
  private probe: NodeJS.Timeout | undefined;
  private stall: NodeJS.Timeout | undefined;
  private drain: NodeJS.Timeout | undefined;

  constructor(
    session: WebSocketSession,
    private readonly chunks: PreparedChunk[],
    private readonly offsetMs: number,
  ) {
    super(session);
    this.sentEndMs = offsetMs;
    this.windowMs = session.plan.ackWindowMs ?? DEFAULT_ACK_WINDOW_MS;
    this.server = session.plan.serverAcks ?? {};
  }

  /** Sends while both windows are open. */
  private readonly pump = (): void => {
    if (this.session.ending.outcome) return this.done();
    clearTimeout(this.stall);
    const { chunks } = this;
    while (this.k < chunks.length && this.inFlight < UNPACED_WINDOW && this.acknowledged()) {
      this.inFlight++;
      this.sentEndMs = this.session.sendAudio(chunks[this.k++]!, this.offsetMs, null, this.written);
    }
    this.watchDrain();
  };

  /** Acknowledgements open the window. */
  protected readonly recheck = this.pump;

  protected start(): void {
    this.pump();
  }

  protected stop(): void {
    clearTimeout(this.probe);
    clearTimeout(this.stall);
    clearTimeout(this.drain);
  }

  /** A chunk was written to the socket: one more may go, or the input is done. */
  private readonly written = (): void => {
    this.inFlight--;
    if (this.k === this.chunks.length && this.inFlight === 0) this.done();
    else this.pump();
  };

  /** Whether the next chunk fits in the acknowledgement window; if not, starts the probe and the stall timer. */
  private acknowledged(): boolean {
    const { server, session } = this;
    if (this.windowMs === 0 || server.known === false) return true;
    const ackedMs = session.ackedMs;
    // Within the window, or everything sent so far acknowledged (a window smaller than a chunk).
    if (this.offsetMs + this.chunks[this.k]!.audioEndMs - (ackedMs ?? 0) <= this.windowMs || this.sentEndMs <= (ackedMs ?? 0)) return true;
    if (ackedMs === undefined && server.known === undefined) {
      this.probe ??= setTimeout(() => {
        if (session.ackedMs === undefined) server.known = false;
        this.pump();
      }, ACK_PROBE_MS);
    }
    // A server that stops acknowledging must not hold the session forever.
    clearTimeout(this.stall);
    this.stall = setTimeout(this.stalled, session.timeouts.finalMs);
    return false;
  }

  private readonly stalled = (): void => {
    this.session.fail({ class: 'timeout', message: `no acknowledgement of the audio sent for ${this.session.timeouts.finalMs} ms` });
  };

  /** A socket that takes none of the audio written to it (a server that stopped reading) must not hold the session forever. */
  private watchDrain(): void {
    clearTimeout(this.drain);
    if (this.inFlight > 0) this.drain = setTimeout(this.undrained, this.session.timeouts.finalMs);
  }

  private readonly undrained = (): void => {
    this.session.fail({ class: 'timeout', message: `the socket took no audio for ${this.session.timeouts.finalMs} ms (the server stopped reading)` });
  };
}
