import type { WebSocketSession } from './ws-session.js';

/**
 * A loop that sends one input's media while the session waits on it. From `run` until
 * it is done it is what the session waits for: it holds `ending.recheck`, so the
 * session's ending (and, unpaced, each acknowledgement) reaches it; done, it lets go
 * of the slot, cancels its timers and resolves.
 */
export abstract class SendLoop {
  private resolve: (() => void) | undefined;

  constructor(protected readonly session: WebSocketSession) {}

  run(): Promise<void> {
    return new Promise((resolve) => {
      this.resolve = resolve;
      this.session.ending.recheck = this.recheck;
      this.start();
    });
  }

  /** What socket events and the ending call while the loop runs; one function for the loop's life, so a re-check allocates nothing. */
  protected abstract readonly recheck: () => void;
  /** Sends what may go now, then waits for its deadline or the socket. */
  protected abstract start(): void;
  /** Cancels the loop's timers. */
  protected abstract stop(): void;

  protected done(): void {
    this.stop();
    this.session.ending.recheck = undefined;
    this.resolve!();
  }
}
