/**
 * The figures against the load's own stamps: bench/speech-load.ts stamps when it received
 * each answer's request and wrote each audio chunk; each session's TTFA and stalls are
 * computed once from voxbench's receive stamps and once with each audio event at its
 * chunk's write stamp instead (as bench/wire-truth.ts does with the wire's times), and
 * the difference is what the client added: its receive-stamp delay and the loopback's.
 * Both processes stamp on `performance.timeOrigin + performance.now()`, the machine's
 * clock read at high resolution, and the run's clock starts at `origin` on it.
 */
import { computeSessionMetrics } from '../src/metrics/compute.js';
import { percentile } from '../src/metrics/stats.js';
import type { HeldSession } from '../src/report/schema.js';
import type { SessionTimeline } from '../src/timeline/types.js';
import { ANSWER_TIMING, type AnswerStamps, type LoadStamps } from './load-stamps.js';

export { loadStamps, type LoadStamps } from './load-stamps.js';

export interface StampTruth {
  /** Completed sessions matched with an answer whose every audio chunk has a stamp. */
  matched: number;
  sessions: number;
  /** Per session, in the order the sessions started, voxbench's TTFA minus the TTFA from the load's stamps (ms). */
  ttfaMs: number[];
  /** Per session, the largest difference in stall_ms, and in stall_count. */
  stallMs: number[];
  stallCount: number[];
  /**
   * Every audio event after each session's first: its receive stamp minus its write stamp
   * (ms), pooled. Whether the first event's lateness is its own (a session's start) or
   * every event's (the receive path), which the stalls do not show: a playback buffer
   * absorbs a few late milliseconds.
   */
  laterAudio: { p50Ms: number; p99Ms: number; maxMs: number };
}

/** The stamps of `session`'s answer, found by its SSE answer number or its WebSocket port. */
function answerOf(timeline: SessionTimeline, stamps: LoadStamps): AnswerStamps | undefined {
  const { transport } = timeline;
  if (transport.kind === 'http') {
    const id = transport.requests[0]?.serverTiming?.[ANSWER_TIMING];
    return id === undefined ? undefined : stamps.sse[String(id)];
  }
  return transport.kind === 'websocket' && transport.localPort !== undefined ? stamps.ws[String(transport.localPort)] : undefined;
}

/** Each completed session's TTFA and stalls from its stamps against the same from the load's, the run's clock starting at `origin`. */
export function stampTruth(sessions: readonly HeldSession[], stamps: LoadStamps, origin: number): StampTruth {
  const truth: StampTruth = {
    matched: 0,
    sessions: sessions.length,
    ttfaMs: [],
    stallMs: [],
    stallCount: [],
    laterAudio: { p50Ms: NaN, p99Ms: NaN, maxMs: NaN },
  };
  const later: number[] = [];
  const started = [...sessions].sort((a, b) => a.timeline.startMs - b.timeline.startMs);
  for (const { timeline, outcome } of started) {
    const answer = answerOf(timeline, stamps);
    if (outcome.status !== 'completed' || !answer) continue;
    const audio = timeline.received.filter((f) => f.kind === 'audio').length;
    if (audio !== answer.writesAt.length) continue;
    let k = 0;
    const atServer: SessionTimeline = {
      ...timeline,
      received: timeline.received.map((f) => (f.kind === 'audio' ? { ...f, t: answer.writesAt[k++]! - origin } : f)),
    };
    const stamped = computeSessionMetrics(timeline).inputs[0];
    const served = computeSessionMetrics(atServer).inputs[0];
    if (stamped?.ttfa_ms === undefined || served?.ttfa_ms === undefined) continue;
    truth.matched++;
    truth.ttfaMs.push(stamped.ttfa_ms - served.ttfa_ms);
    truth.stallMs.push((stamped.stall_ms ?? 0) - (served.stall_ms ?? 0));
    truth.stallCount.push((stamped.stall_count ?? 0) - (served.stall_count ?? 0));
    k = 0;
    for (const f of timeline.received) if (f.kind === 'audio' && k++ > 0) later.push(f.t - (answer.writesAt[k - 1]! - origin));
  }
  later.sort((a, b) => a - b);
  if (later.length > 0) truth.laterAudio = { p50Ms: percentile(later, 50), p99Ms: percentile(later, 99), maxMs: later.at(-1)! };
  return truth;
}
