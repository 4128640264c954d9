import { behindSchedule } from './deadlines.js';

/**
 * Work queued while sessions stream against their deadlines (the figures of sessions
 * that ended), done in slices of about `sliceMs` with a macrotask between them, so a
 * chunk that falls due meanwhile waits at most about one slice, and none while this
 * thread's chunks are overdue (`behindSchedule`). The queue holds only references to
 * what the caller keeps anyway; `flush` does what is left at once.
 */
export class SlicedWork<T> {
  private items: T[] = [];
  private scheduled = false;

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
    if (behindSchedule()) return void setImmediate(this.slice);
    const until = performance.now() + this.sliceMs;
    let done = 0;
    while (done < this.items.length && performance.now() < until) this.work(this.items[done++]!);
    this.items = this.items.slice(done);
    this.scheduled = this.items.length > 0;
    if (this.scheduled) setImmediate(this.slice);
  };
}
