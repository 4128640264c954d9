import type { Protocol } from '../dialects/index.js';
import type { DialectInference } from './metering.js';
import type { ObservedSession } from './observer.js';
import type { ConnectionHooks } from './relay.js';

/** What a connection may hold before its dialect is told: then it is read with the inference's guess. */
const UNSETTLED_FRAMES = 64;
const UNSETTLED_BYTES = 1024 * 1024;

/**
 * A connection whose dialect its client has yet to tell (OpenAI Realtime's shared
 * path): what the relay reports is held, in order, until a client frame settles the
 * dialect (or the connection ends, or holds 64 frames or 1 MiB), then the session is
 * started with that dialect and everything held is replayed into it, so it is metered
 * as if the dialect had been known from the upgrade (its stamps are the frames' own).
 * Until then the connection is not yet counted open.
 */
export class SettlingConnection implements ConnectionHooks {
  private held: Array<(session: ObservedSession) => void> | undefined = [];
  private heldBytes = 0;
  private session: ObservedSession | undefined;

  constructor(
    private readonly inference: DialectInference,
    private readonly start: (protocol: Protocol) => ObservedSession,
  ) {}

  opened(t: number): void {
    this.pass((s) => s.opened(t));
  }

  refused(t: number, status: number, error?: NodeJS.ErrnoException): void {
    this.settle();
    this.session!.refused(t, status, error);
  }

  clientFrame(t: number, data: Buffer, isBinary: boolean): void {
    this.pass((s) => s.clientFrame(t, data, isBinary), data.length);
    if (!this.held) return;
    const protocol = this.inference.read(data, isBinary);
    if (protocol !== undefined) this.settle(protocol);
  }

  serverFrame(t: number, data: Buffer, isBinary: boolean): void {
    this.pass((s) => s.serverFrame(t, data, isBinary), data.length);
  }

  unreadable(t: number, side: 'client' | 'server', message: string): void {
    this.pass((s) => s.unreadable(t, side, message));
  }

  closed(t: number, code: number, reason: string, by: 'client' | 'server'): void {
    this.settle();
    this.session!.closed(t, code, reason, by);
  }

  /** The proxy stops with the connection still open. */
  interrupt(): void {
    this.settle();
    this.session!.interrupt();
  }

  /** Tells the session, or holds the call for it while the dialect is untold. */
  private pass(call: (session: ObservedSession) => void, bytes = 0): void {
    if (!this.held) return call(this.session!);
    this.held.push(call);
    this.heldBytes += bytes;
    if (this.held.length >= UNSETTLED_FRAMES || this.heldBytes >= UNSETTLED_BYTES) this.settle();
  }

  private settle(protocol = this.inference.guess()): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    this.session = this.start(protocol);
    for (const call of held) call(this.session);
  }
}
