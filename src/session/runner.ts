import type { ReceivedAudio } from './received-audio.js';
import type { SessionCaps } from './session-caps.js';
import type { Clock } from '../runtime/clock.js';
import type { Failure, IncompleteReason, SessionOutcome, SessionTimeline, Stage, Task, TurnDetection } from '../timeline/types.js';

/** Per-stage time limits in ms; a session that exceeds one fails with that stage named. */
export interface StageTimeouts {
  connectMs: number;
  readyMs: number;
  /** Waiting for a final result (a transcript, the end of a response body). */
  finalMs: number;
}

export const DEFAULT_TIMEOUTS: StageTimeouts = { connectMs: 10_000, readyMs: 10_000, finalMs: 30_000 };

/** What every runner needs besides its transport's own plan. */
export interface RunnerBase {
  /** When the load profile meant this session to start. */
  plannedStartMs: number;
  timeouts: StageTimeouts;
  clock: Clock;
  /** Aborting ends the session as incomplete; the reason must be an IncompleteReason. */
  signal?: AbortSignal;
  /** Received audio payloads kept for the after-run analysis, bytes per session; 0 or absent keeps none. */
  keepAudioBytes?: number;
  /** How much of what the server sends the session keeps or takes; default DEFAULT_SESSION_CAPS. */
  caps?: SessionCaps;
}

/** What a runner returns: the same shape for every transport. */
export interface SessionResult {
  timeline: SessionTimeline;
  outcome: SessionOutcome;
  /** The audio payloads received, undecoded, when the plan asked to keep them. */
  audio?: ReceivedAudio;
}

/** A session's timeline before anything was sent or received, started now. */
export function newTimeline(
  task: Task,
  turnDetection: TurnDetection,
  plannedStartMs: number,
  startMs: number,
  transport: SessionTimeline['transport'],
): SessionTimeline {
  return {
    task,
    turnDetection,
    plannedStartMs,
    startMs,
    inputs: [],
    sent: [],
    received: [],
    transport,
    counters: { bytesSent: 0, bytesReceived: 0, framesSent: 0, framesReceived: 0 },
  };
}

/**
 * The ending of a session, decided once: the first outcome wins, and `stage` is the
 * stage the runner was in when it happened. Runners share it so every transport ends
 * sessions the same way.
 */
export class Ending {
  outcome: SessionOutcome | undefined;
  stage: Stage = 'connect';
  /** Re-checks whatever the session is waiting for; set by the current wait. */
  recheck: (() => void) | undefined;

  constructor(private readonly clock: Clock) {}

  end(result: SessionOutcome): void {
    this.outcome ??= result;
    this.recheck?.();
  }

  fail(failure: Omit<Failure, 'stage'>): void {
    this.end({ status: 'failed', failure: { ...failure, stage: this.stage } });
  }

  /** Ends the session as incomplete when `signal` aborts; returns the listener's removal. */
  onAbort(signal: AbortSignal | undefined): () => void {
    if (!signal) return () => {};
    const abort = (): void => this.end({ status: 'incomplete', reason: signal.reason as IncompleteReason, stage: this.stage });
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    return () => signal.removeEventListener('abort', abort);
  }

  /**
   * Resolves once `done()` holds or the session has ended. After `limitMs` the stage
   * fails with a timeout naming what it was `waitingFor`; without one, the wait simply ends.
   */
  until(next: Stage, done: () => boolean, limitMs: number, waitingFor?: string): Promise<void> {
    this.stage = next;
    const { clock } = this;
    return new Promise((resolve) => {
      let elapsed = false;
      const deadline = clock.now() + limitMs;
      const expire = (): void => {
        // Timers may fire a fraction of a millisecond early against the clock.
        const left = deadline - clock.now();
        if (left > 0) timer = setTimeout(expire, Math.ceil(left));
        else if (waitingFor !== undefined) this.fail({ class: 'timeout', message: `timed out after ${limitMs} ms waiting for ${waitingFor}` });
        else {
          elapsed = true;
          this.recheck?.();
        }
      };
      let timer = setTimeout(expire, limitMs);
      this.recheck = () => {
        if (this.outcome || elapsed || done()) {
          clearTimeout(timer);
          this.recheck = undefined;
          resolve();
        }
      };
      this.recheck();
    });
  }
}

const TLS_CODE = /^(ERR_SSL|ERR_TLS|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/;

/**
 * A socket error as a failure: refused, TLS, a WebSocket protocol error, a failed connect,
 * or a connection lost: a WebSocket's with close code 1006, an HTTP request's before its status.
 */
export function classifySocketError(
  err: NodeJS.ErrnoException,
  stage: Stage,
  url: string,
  transport: 'websocket' | 'http' = 'websocket',
): Omit<Failure, 'stage'> {
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return { class: 'connect_refused', message: `connection refused by ${new URL(url).host} (is the server running?)` };
  if (TLS_CODE.test(code)) return { class: 'tls', message: `TLS error: ${err.message}` };
  if (code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return { class: 'answer_too_large', message: err.message };
  if (code.startsWith('WS_ERR_')) return { class: 'protocol_violation', message: err.message };
  if (stage === 'connect') return { class: 'connect_error', message: `cannot connect to ${new URL(url).host}: ${err.message}` };
  if (transport === 'http') return { class: 'connection_lost', message: `connection lost before the response status: ${err.message}` };
  return { class: 'abnormal_close', closeCode: 1006, message: `connection lost: ${err.message}` };
}
