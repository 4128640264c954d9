import type { Deadline } from '../runtime/deadlines.js';
import type { PreparedChunk, PreparedSilence, PreparedTurn } from './prepare.js';
import type { PreparedText, PreparedTextChunk } from './prepare-text.js';
import { SendLoop } from './ws-send-loop.js';
import type { WebSocketSession } from './ws-session.js';
import { UnpacedAudio } from './ws-unpaced.js';

/** Streams one input's audio chunks: unpaced, or paced with chunks due at `t0 + (offsetMs + position) / speed`. */
export function streamAudio(session: WebSocketSession, prepared: PreparedTurn, offsetMs: number, t0: number): Promise<void> {
  session.ending.stage = 'streaming';
  const { pace } = session.plan;
  if (pace.kind === 'none') return new UnpacedAudio(session, prepared.chunks, offsetMs).run();
  return new PacedAudio(session, prepared.chunks, offsetMs, t0, pace.speed).run();
}

/** Sends a prompt: every piece at once, or (streamed, and paced) each on its token schedule from `t0`. */
export function sendPrompt(session: WebSocketSession, prepared: PreparedText, t0: number): Promise<void> {
  session.ending.stage = 'streaming';
  const { chunks } = prepared;
  const { pace } = session.plan;
  if (!prepared.streamed || pace.kind === 'none') {
    for (let i = 0; i < chunks.length; i++) session.sendTextChunk(chunks[i]!, null);
    return Promise.resolve();
  }
  return new PacedText(session, chunks, t0, pace.speed).run();
}

/**
 * Sends `count` frames, frame i once its deadline `due(i)` has passed. Deadlines are
 * absolute, so timer lateness never accumulates, within an input or across the inputs
 * of one continuous stream; they wait in the thread's one scheduler with every other
 * session's.
 */
abstract class Schedule extends SendLoop {
  private k = 0;
  private next: Deadline | undefined;

  constructor(
    session: WebSocketSession,
    private readonly count: number,
  ) {
    super(session);
  }

  /** When frame `i` is due, on the clock. */
  protected abstract due(i: number): number;
  protected abstract sendOne(i: number, plannedMs: number): void;

  protected readonly recheck = (): void => {
    if (this.session.ending.outcome) this.done();
  };

  protected start(): void {
    this.tick();
  }

  protected stop(): void {
    this.next?.cancel();
  }

  private readonly tick = (): void => {
    const { session } = this;
    if (session.ending.outcome) return this.done();
    let now = session.clock.now();
    while (this.k < this.count) {
      const plannedMs = this.due(this.k);
      if (plannedMs > now) break;
      this.sendOne(this.k, plannedMs);
      this.k++;
      now = session.clock.now();
    }
    if (this.k === this.count) return this.done();
    this.next = session.deadlines.at(this.due(this.k), this.tick);
  };
}

class PacedAudio extends Schedule {
  constructor(
    session: WebSocketSession,
    private readonly chunks: PreparedChunk[],
    private readonly offsetMs: number,
    private readonly t0: number,
    private readonly speed: number,
  ) {
    super(session, chunks.length);
  }

  protected due(i: number): number {
    return this.t0 + (this.offsetMs + this.chunks[i]!.audioStartMs) / this.speed;
  }

  protected sendOne(i: number, plannedMs: number): void {
    this.session.sendAudio(this.chunks[i]!, this.offsetMs, plannedMs);
  }
}

class PacedText extends Schedule {
  constructor(
    session: WebSocketSession,
    private readonly chunks: PreparedTextChunk[],
    private readonly t0: number,
    private readonly speed: number,
  ) {
    super(session, chunks.length);
  }

  protected due(i: number): number {
    return this.t0 + this.chunks[i]!.atMs / this.speed;
  }

  protected sendOne(i: number, plannedMs: number): void {
    this.session.sendTextChunk(this.chunks[i]!, plannedMs);
  }
}

/**
 * Silence a waiting microphone streams from `fromMs` of the stream, each chunk due at
 * `t0 + position / speed` in the thread's one scheduler, until stopped. It runs beside
 * a wait, not as one: only the session's ending stops it early.
 */
export class SilenceFiller {
  private sentMs: number;
  private next: Deadline | undefined;

  constructor(
    private readonly session: WebSocketSession,
    private readonly silence: PreparedSilence,
    fromMs: number,
    private readonly t0: number,
    private readonly speed: number,
  ) {
    this.sentMs = fromMs;
    this.tick();
  }

  /** Stops the silence; returns where the stream has got to. */
  stop(): number {
    this.next?.cancel();
    return this.sentMs;
  }

  private readonly tick = (): void => {
    const { session, t0, speed } = this;
    let now = session.clock.now();
    while (!session.ending.outcome && t0 + this.sentMs / speed <= now) {
      session.sendSilence(this.silence, this.sentMs, t0 + this.sentMs / speed);
      this.sentMs += this.silence.chunkMs;
      now = session.clock.now();
    }
    if (!session.ending.outcome) this.next = session.deadlines.at(t0 + this.sentMs / speed, this.tick);
  };
}
