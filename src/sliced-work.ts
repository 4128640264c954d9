import { behindSchedule } from './deadlines.js';

/** The longest queued work waits while this thread's chunks are overdue, ms. */
export const MAX_WAIT_MS = 10;

/**
 * Work queued while sessions stream against their deadlines (the figures of sessions
 * that ended), done in slices of about `sliceMs` with a macrotask between them, so a
 * chunk that falls due meanwhile waits at most about one slice; while this thread's
 * chunks are overdue (`behindSchedule`), a slice waits for them, up to MAX_WAIT_MS. The queue holds only references to
 * what the caller keeps anyway; `flush` does what is left at once.
 */
export class SlicedWork<T> {
  private items: T[] = [];
  private scheduled = false;
  /** Since when the next slice has waited for overdue chunks, ms (performance.now). */
  private waitingSince: number | undefined;

  constructor(
    private readonly work: (item: T) => void,
    private readonly sliceMs = 0.5,
  ) {}

  push(item: T): void {
    this.items.push(item);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.slice);
    }
  }

  /** Items queued, not yet done. */
  get length(): number {
    return this.items.length;
  }

  flush(): void {
    const items = this.items;
    this.items = [];
    for (const item of items) this.work(item);
  }

  private readonly slice = (): void => {
    const now = performance.now();
    // Behind schedule, a slice waits, but never longer than MAX_WAIT_MS: an overloaded client still closes and logs its sessions.
    if (behindSchedule()) {
      this.waitingSince ??= now;
      if (now - this.waitingSince < MAX_WAIT_MS) return void setImmediate(this.slice);
    }
    this.waitingSince = undefined;
    const until = now + this.sliceMs;
    let done = 0;
    try {
      while (done < this.items.length && performance.now() < until) this.work(this.items[done++]!);
    } finally {
      this.items = this.items.slice(done);
      this.scheduled = this.items.length > 0;
      if (this.scheduled) setImmediate(this.slice);
    }
  };
}
