/**
 * Runs actions at given times, strictly in the order they were queued. One timer
 * serves the head of the queue, so two emissions due in the same millisecond can
 * never swap places, as separate timers could.
 */
export class EmissionQueue {
  private readonly items: Array<{ at: number; action: () => void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private last = 0;

  /** Queues `action` for `at` (performance.now() time), never before earlier items. */
  push(at: number, action: () => void): void {
    this.last = Math.max(this.last, at);
    this.items.push({ at: this.last, action });
    if (this.items.length === 1) this.arm();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.items.length = 0;
  }

  private arm(): void {
    const head = this.items[0];
    if (!head) return;
    this.timer = setTimeout(() => this.run(), Math.max(0, Math.ceil(head.at - performance.now())));
  }

  private run(): void {
    const now = performance.now();
    // Never early: a timer that fires a fraction of a millisecond before its item is re-armed.
    while (this.items.length > 0 && this.items[0]!.at <= now) this.items.shift()!.action();
    this.arm();
  }
}
