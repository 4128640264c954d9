/**
 * How the server comes up, as a real one does after a deploy or a scale from zero: it
 * refuses its first `refuseFirst` connections (HTTP 503, a load balancer with no ready
 * replica), then holds the first one it takes, and every one that arrives while it
 * loads, until `coldStartMs` after that first one arrived (a model loading). Later
 * connections are served at once.
 */
export class Wake {
  private refused = 0;
  private readyAtMs: number | undefined;

  constructor(
    private readonly refuseFirst: number,
    private readonly coldStartMs: number,
  ) {}

  /** What to do with a connection that arrives now: refuse it, or hold it this many ms (0: serve it now). */
  admit(nowMs = Date.now()): 'refuse' | number {
    if (this.refused < this.refuseFirst) {
      this.refused++;
      return 'refuse';
    }
    this.readyAtMs ??= nowMs + this.coldStartMs;
    return Math.max(0, this.readyAtMs - nowMs);
  }
}

/** Why a connection the server is not ready for is refused, in its log and the error body. */
export const NOT_READY = 'not ready: the server is starting';
