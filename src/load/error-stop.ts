import type { FailureClass, IncompleteReason, SessionRecord } from '../timeline/types.js';

/** Stop a benchmark whose error rate exceeds `maxErrorRate` once `minSessions` have finished. */
export interface ErrorRateStop {
  maxErrorRate: number;
  minSessions: number;
}

/** The rules that stop a level for its errors; the default rule (`unreachable`) always applies. */
export interface ErrorStops {
  /** Stop once this many sessions have failed (GuideLLM's `--max-errors`). */
  maxErrors?: number;
  rate?: ErrorRateStop;
}

export type ErrorStopReason = Exclude<IncompleteReason, 'max_seconds' | 'interrupted'>;

/**
 * A level's first sessions (in start order) that must all fail before any answer for
 * the level to stop as `unreachable`: a dead target otherwise fails thousands of
 * sessions a second for a whole `--duration`.
 */
export const UNREACHABLE_AFTER = 10;

/** Failures that mean no server ever answered: nothing listens, the connect failed, TLS failed, or the connect timed out. */
const NO_ANSWER: readonly FailureClass[] = ['connect_refused', 'connect_error', 'tls'];

function failedBeforeAnswer(record: SessionRecord): boolean {
  const { outcome } = record;
  if (outcome.status !== 'failed') return false;
  return NO_ANSWER.includes(outcome.failure.class) || (outcome.failure.class === 'timeout' && outcome.failure.stage === 'connect');
}

/**
 * Judges a level's sessions as they end against its error rules. The unreachable rule
 * looks only at the first sessions started, which connect before the level loads the
 * server, so an overloaded server refusing later sessions never trips it.
 */
export class ErrorStop {
  private finished = 0;
  private failed = 0;
  private started = 0;
  /** Of the first UNREACHABLE_AFTER sessions started, those that failed before any answer, until one did not. */
  private unanswered = 0;
  private answered = false;

  constructor(private readonly rules: ErrorStops = {}) {}

  /** Call as a session starts; returns its place in start order, for `ended`. */
  start(): number {
    return this.started++;
  }

  /** The reason to stop the level now that this session (started `order`-th) ended, if any. */
  ended(record: SessionRecord, order: number): ErrorStopReason | undefined {
    if (record.outcome.status === 'incomplete') return undefined;
    this.finished++;
    if (record.outcome.status === 'failed') this.failed++;
    if (order < UNREACHABLE_AFTER && !this.answered) {
      if (failedBeforeAnswer(record)) this.unanswered++;
      else this.answered = true;
    }
    if (!this.answered && this.unanswered >= UNREACHABLE_AFTER) return 'unreachable';
    const { maxErrors, rate } = this.rules;
    if (maxErrors !== undefined && this.failed >= maxErrors) return 'max_errors';
    if (rate && this.finished >= rate.minSessions && this.failed / this.finished > rate.maxErrorRate) return 'error_rate';
    return undefined;
  }
}
