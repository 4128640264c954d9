import { untilNextDeadline } from './deadlines.js';

/** The longest deferred work waits for a gap between the chunks of the sessions still streaming, ms (one default chunk period). */
export const MAX_WAIT_MS = 100;
/** The shortest gap before this thread's next deadline that deferred work starts in, ms; a shorter one is left to the chunks. */
export const MIN_GAP_MS = 0.1;
/** How often waiting work looks for a gap, ms (a timer: an immediate would spin the event loop). */
const RETRY_MS = 1;

/**
 * Until when (performance.now) a slice of deferred work that has waited `waitedMs` may
 * run, or undefined while it should wait. It runs in a gap of at least MIN_GAP_MS
 * before the thread's next deadline, and ends with the gap; work that has waited
 * `maxWaitMs` runs a whole slice whatever is due, so an overloaded client still closes
 * and logs its sessions.
 */
function sliceUntil(sliceMs: number, waitedMs: number, maxWaitMs = MAX_WAIT_MS): number | undefined {
  const now = performance.now();
  if (waitedMs >= maxWaitMs) return now + sliceMs;
  const gap = untilNextDeadline();
  return gap < MIN_GAP_MS ? undefined : now + Math.min(sliceMs, gap);
}

/** Resolves when deferred work that started waiting at `since` may run a slice of `sliceMs`, with the time that slice ends. */
export async function gapFor(sliceMs: number, since: number): Promise<number> {
  for (;;) {
    const until = sliceUntil(sliceMs, performance.now() - since);
    if (until !== undefined) return until;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/**
 * Work queued while sessions stream against their deadlines (closing handshakes, the
 * figures of sessions that ended), done in slices with a macrotask between them. A
 * slice fits in a gap between the thread's deadlines (`sliceUntil`): when a level's
 * sessions all end within one chunk period, their end work waits until the sessions
 * still streaming have sent their last chunks, up to `maxWaitMs`. A slice does at least
 * one item. The queue holds only references to what the caller keeps anyway; `flush`
 * does what is left at once.
 */
export class SlicedWork<T> {
  private items: T[] = [];
  /** When each queued item was pushed (performance.now). */
  private pushedAt: number[] = [];
  /** The first item not yet done: slices move it on, and the arrays are cut only when half is done (a slice may do a single item). */
  private head = 0;
  private scheduled = false;

  constructor(
    private readonly work: (item: T) => void,
    private readonly sliceMs = 0.5,
    private readonly maxWaitMs = MAX_WAIT_MS,
  ) {}

  push(item: T): void {
    this.items.push(item);
    this.pushedAt.push(performance.now());
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.slice);
    }
  }

  /** Items queued, not yet done. */
  get length(): number {
    return this.items.length - this.head;
  }

  flush(): void {
    const items = this.items.slice(this.head);
    this.items = [];
    this.pushedAt = [];
    this.head = 0;
    for (const item of items) this.work(item);
  }

  private readonly slice = (): void => {
    if (this.length === 0) return void (this.scheduled = false); // flushed meanwhile
    const until = sliceUntil(this.sliceMs, performance.now() - this.pushedAt[this.head]!, this.maxWaitMs);
    if (until === undefined) return void setTimeout(this.slice, RETRY_MS);
    try {
      do this.work(this.items[this.head++]!);
      while (this.head < this.items.length && performance.now() < until);
    } finally {
      if (this.head * 2 >= this.items.length) {
        this.items = this.items.slice(this.head);
        this.pushedAt = this.pushedAt.slice(this.head);
        this.head = 0;
      }
      this.scheduled = this.length > 0;
      if (this.scheduled) setImmediate(this.slice);
    }
  };
}
