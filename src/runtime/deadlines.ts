import type { Clock } from './clock.js';

/** A deadline waiting in a `Deadlines`; `cancel` drops it. */
export interface Deadline {
  cancel(): void;
}

interface Entry {
  due: number;
  fire: (() => void) | undefined;
}

/**
 * Every session's next deadline in this thread, in one min-heap on one timer. When the
 * timer fires, every deadline due by then fires in the same pass, so a thousand sessions due in the same millisecond cost one timer, not
 * a thousand, and none waits for another timer's turn. Deadlines are absolute times on
 * `clock`; a cancelled one stays in the heap, inert, until its time comes.
 */
export class Deadlines {
  private readonly heap: Entry[] = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  /** When the armed timer is due (Infinity when none is armed). */
  private timerDue = Infinity;
  /** Set during a pass: deadlines added then are armed once, at its end. */
  private running = false;

  constructor(private readonly clock: Clock) {
    schedulers.add(new WeakRef(this));
  }

  /** Calls `fire` once `clock.now()` has reached `due`. */
  at(due: number, fire: () => void): Deadline {
    const entry: Entry = { due, fire };
    this.push(entry);
    if (!this.running && due < this.timerDue) this.arm();
    return { cancel: () => (entry.fire = undefined) };
  }

  /** How long until the next deadline is due, ms: 0 or less when one has passed and not yet fired, Infinity when none waits. */
  untilNext(): number {
    const { heap } = this;
    while (heap.length > 0 && heap[0]!.fire === undefined) this.pop(); // cancelled
    return heap.length > 0 ? heap[0]!.due - this.clock.now() : Infinity;
  }

  /** Whether a deadline has passed and not yet fired: the thread is behind its sessions' schedules. */
  overdue(): boolean {
    return this.untilNext() <= 0;
  }

  /**
   * Resolves once no deadline is overdue, so work that can wait (starting a session:
   * a connect and a handshake, far more than a chunk costs) lets the due chunks of
   * the sessions already streaming go first.
   */
  async caughtUp(): Promise<void> {
    while (this.overdue()) await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * One pass fires what was due when it began; deadlines that fall due during it wait
   * for the next pass, after the event loop has read the sockets (else, behind its
   * schedule, one pass could run on and leave received frames unstamped).
   */
  private readonly run = (): void => {
    this.running = true;
    try {
      const until = this.clock.now();
      while (this.heap.length > 0 && this.heap[0]!.due <= until) this.pop().fire?.();
    } finally {
      this.running = false;
      this.arm();
    }
  };

  private arm(): void {
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
    this.timerDue = this.heap[0]?.due ?? Infinity;
    if (this.timerDue === Infinity) return;
    const wait = Math.ceil(this.timerDue - this.clock.now());
    // Already due: after this turn's socket reads (a timer would run in this turn's timers
    // phase). Left ref'd: an unref'd immediate lets the loop block in its poll for I/O.
    if (wait <= 0) this.timer = setImmediate(this.run);
    // A streaming session's socket keeps the process alive; cancelled deadlines must not.
    else this.timer = setTimeout(this.run, wait).unref();
  }

  private push(entry: Entry): void {
    const { heap } = this;
    let i = heap.push(entry) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.due <= entry.due) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): Entry {
    const { heap } = this;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const child = left + 1 < heap.length && heap[left + 1]!.due < heap[left]!.due ? left + 1 : left;
        if (heap[child]!.due >= last.due) break;
        heap[i] = heap[child]!;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}

/** This thread's schedulers, for `untilNextDeadline`. */
const schedulers = new Set<WeakRef<Deadlines>>();

/**
 * How long until the next deadline of any of this thread's schedulers, ms (0 or less:
 * the thread is behind; Infinity: none waits). Work that can wait (session-end work,
 * the session log) fits itself in the gaps, so the chunks of the sessions still
 * streaming always go first.
 */
export function untilNextDeadline(): number {
  let least = Infinity;
  for (const ref of schedulers) {
    const deadlines = ref.deref();
    if (!deadlines) schedulers.delete(ref);
    else least = Math.min(least, deadlines.untilNext());
  }
  return least;
}

const byClock = new WeakMap<Clock, Deadlines>();

/** The one scheduler of the sessions that run on `clock` in this thread. */
export function deadlinesOf(clock: Clock): Deadlines {
  let deadlines = byClock.get(clock);
  if (!deadlines) byClock.set(clock, (deadlines = new Deadlines(clock)));
  return deadlines;
}
