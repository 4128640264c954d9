import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Clock } from '../clock.js';
import type { IncompleteReason, SessionRecord } from '../timeline/types.js';
import { lanes, type LoadProfile } from './profiles.js';

/** Event-loop delay sampling interval, ms. */
const LOOP_SAMPLE_MS = 10;

export interface ExecuteOptions {
  profile: LoadProfile;
  maxSessions: number;
  /** Stop after this long: no new sessions, and those still running end as incomplete. */
  maxSeconds?: number;
  clock: Clock;
  /** Aborting (e.g. on Ctrl-C) ends running sessions as incomplete and starts no more. */
  signal?: AbortSignal;
  /** Runs session `index`; must never reject. */
  runSession(index: number, plannedStartMs: number, signal: AbortSignal): Promise<SessionRecord>;
  onSessionEnd?(record: SessionRecord): void;
}

/** How late the event loop ran timers during the benchmark, beyond their due time. */
export interface EventLoopDelay {
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface Execution {
  records: SessionRecord[];
  startMs: number;
  endMs: number;
  /** Why the run stopped early, if it did. */
  stoppedBy?: IncompleteReason;
  eventLoopDelay: EventLoopDelay;
}

/** Runs sessions under a closed-loop profile until `maxSessions`, a time limit or an abort. */
export async function execute(options: ExecuteOptions): Promise<Execution> {
  const { clock } = options;
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // one listener per open session
  const forward = (): void => stop.abort(options.signal!.reason ?? 'interrupted');
  options.signal?.addEventListener('abort', forward, { once: true });
  if (options.signal?.aborted) forward();
  const limitTimer =
    options.maxSeconds === undefined ? undefined : setTimeout(() => stop.abort('max_seconds'), options.maxSeconds * 1000);

  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  loopDelay.enable();
  const startMs = clock.now();
  const records: SessionRecord[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (!stop.signal.aborted && next < options.maxSessions) {
      const record = await options.runSession(next++, clock.now(), stop.signal);
      records.push(record);
      options.onSessionEnd?.(record);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes(options.profile), options.maxSessions) }, lane));
  const endMs = clock.now();
  loopDelay.disable();
  clearTimeout(limitTimer);
  options.signal?.removeEventListener('abort', forward);

  // The histogram holds whole sampling intervals; the delay is what exceeds the interval.
  const ns = (value: number): number => (Number.isFinite(value) ? Math.max(0, value / 1e6 - LOOP_SAMPLE_MS) : 0);
  return {
    records: records.sort((a, b) => a.index - b.index),
    startMs,
    endMs,
    ...(stop.signal.aborted ? { stoppedBy: stop.signal.reason as IncompleteReason } : {}),
    eventLoopDelay: {
      meanMs: ns(loopDelay.mean),
      p50Ms: ns(loopDelay.percentile(50)),
      p99Ms: ns(loopDelay.percentile(99)),
      maxMs: ns(loopDelay.max),
    },
  };
}
