import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Clock } from '../runtime/clock.js';
import type { IncompleteReason, SessionRecord } from '../timeline/types.js';
import { arrivalSchedule, isOpenLoop, isStaged, lanes, laneStarts, type LoadProfile } from '../load/profiles.js';
import { laneWindows, stagesLength, type LaneWindow } from '../load/stages.js';
import type { StampProbe } from '../runtime/stamp-probe.js';
import { NO_DELAY, type DelaySummary, type EventLoopDelay } from '../runtime/delay.js';
import { deadlinesOf } from '../runtime/deadlines.js';
import type { StreamGate } from '../timeline/types.js';
import { connectPhase } from './connect-phase.js';
import { SlicedWork } from '../runtime/sliced-work.js';
import { ErrorStop, type ErrorRateStop } from '../load/error-stop.js';

/** Event-loop delay sampling interval, ms. */
const LOOP_SAMPLE_MS = 10;
/** The longest a session's start waits for a gap between other sessions' chunks, ms: its start lag shows the wait. */
const START_WAIT_MS = 10;

export interface ExecuteOptions {
  profile: LoadProfile;
  maxSessions: number;
  /** Stop after this long: no new sessions, and those still running end as incomplete. */
  maxSeconds?: number;
  /** Start sessions for this long (lanes keep starting them, or arrivals are planned); those started finish. */
  durationMs?: number;
  /** Spread lane starts (closed loop) or ramp the arrival rate (open loop) over this long. */
  rampUpMs?: number;
  /** Closed loop with no ramp-up: spread lane starts evenly over this long (one chunk period), so no two lanes' deadlines coincide. */
  phaseSpreadMs?: number;
  /**
   * Closed loop, lanes spread by phase (no ramp-up): each lane's first session connects
   * at the level's start and streams at its phase once every lane's first session is
   * ready (connect-phase.ts).
   */
  connectFirst?: boolean;
  /** With `connectFirst`: called once this thread's lanes are all ready; resolves when they stream from (other threads' lanes too). Default: at once. */
  streamStart?: () => Promise<number>;
  /** When the level starts on `clock` (worker threads share one, so their lanes' phases interleave exactly); default now. */
  startAtMs?: number;
  /** Closed loop: the lanes of the whole level that run here (workers, shards), so phases are spread by global lane; default all. */
  lanes?: { mine: number[]; of: number };
  stopOnErrorRate?: ErrorRateStop;
  /** Stop once this many sessions have failed. Whatever the rules, a level whose first sessions all fail before any answer stops (error-stop.ts). */
  maxErrors?: number;
  clock: Clock;
  /** Aborting (e.g. on Ctrl-C) ends running sessions as incomplete and starts no more. */
  signal?: AbortSignal;
  /** Only these session indices run here (the rest run in other workers); default all. */
  shard?: (index: number) => boolean;
  /** Runs session `index` (held by `gate` in a connect phase); must never reject. */
  runSession(index: number, plannedStartMs: number, signal: AbortSignal, gate?: StreamGate): Promise<SessionRecord>;
  onSessionStart?: () => void;
  onSessionEnd?: (record: SessionRecord) => void;
  /** This thread's receive-stamp probe, started before the level (its thread's start must not overlap the level's); none: no receive delay is measured. */
  probe?: StampProbe;
}

export interface Execution {
  records: SessionRecord[];
  startMs: number;
  endMs: number;
  /** Why the benchmark stopped early, if it did. */
  stoppedBy?: IncompleteReason;
  /** Open loop: sessions that found `maxOpen` sessions open at their planned start. */
  capHits: number;
  eventLoopDelay: EventLoopDelay;
  /** What the loopback probe measured: how long a received frame waited to be stamped. */
  receiveDelay: DelaySummary;
}

/**
 * Runs one benchmark's sessions under a load profile until `maxSessions` or the
 * duration (sessions then running finish), or until a time limit, an error rule
 * or an abort (sessions then running end incomplete). Every session started is in the records.
 */
export async function execute(options: ExecuteOptions): Promise<Execution> {
  const { clock } = options;
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // one listener per open session
  const forward = (): void => stop.abort(options.signal!.reason ?? 'interrupted');
  options.signal?.addEventListener('abort', forward, { once: true });
  if (options.signal?.aborted) forward();
  const limitTimer = options.maxSeconds === undefined ? undefined : setTimeout(() => stop.abort('max_seconds'), options.maxSeconds * 1000);

  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  loopDelay.enable();
  options.probe?.take(); // what it measured between levels is not this level's
  const startMs = options.startAtMs ?? clock.now();
  // Staged profiles start sessions for as long as their stages last, or the duration if shorter.
  const durationMs = Math.min(options.durationMs ?? Infinity, isStaged(options.profile) ? stagesLength(options.profile.stages) : Infinity);
  const before = (): boolean => clock.now() < startMs + durationMs;
  const records: SessionRecord[] = [];
  const errorStop = new ErrorStop({
    ...(options.maxErrors !== undefined ? { maxErrors: options.maxErrors } : {}),
    ...(options.stopOnErrorRate ? { rate: options.stopOnErrorRate } : {}),
  });
  const deadlines = deadlinesOf(clock);
  // Sessions start (a connect: far more work than a chunk) in slices of about 0.5 ms,
  // with the event loop's socket reads between them, so a level's thousand starts do
  // not keep the frames of sessions already connected waiting to be stamped; a start
  // waits for a gap between the chunks of the sessions streaming for at most START_WAIT_MS.
  const sessionStarts = new SlicedWork<() => void>((start) => start(), 0.5, START_WAIT_MS);
  const runOne = async (index: number, plannedStartMs: number, laneOffsetMs?: number, gate?: StreamGate): Promise<void> => {
    // A session's start waits while chunks of the sessions already streaming are due; its start lag shows the wait.
    await deadlines.caughtUp();
    let order = 0;
    const record = await new Promise<SessionRecord>((resolve, reject) =>
      sessionStarts.push(() => {
        try {
          order = errorStop.start();
          options.onSessionStart?.();
          resolve(options.runSession(index, plannedStartMs, stop.signal, gate));
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err))); // the caller's callback threw: the level fails with it, as before
        }
      }),
    );
    // Set on the record itself: the run keys what it keeps of a session (its audio) by the record.
    if (laneOffsetMs !== undefined) record.laneOffsetMs = laneOffsetMs;
    records.push(record);
    const errors = errorStop.ended(record, order);
    // The sessions still running end incomplete with the reason; none is dropped.
    if (errors && !stop.signal.aborted) stop.abort(errors);
    options.onSessionEnd?.(record);
  };
  const mine = options.shard ?? (() => true);
  const rampUpMs = options.rampUpMs ?? 0;
  let capHits = 0;

  if (isOpenLoop(options.profile)) {
    const schedule = arrivalSchedule(options.profile, options.maxSessions, rampUpMs, durationMs);
    const maxOpen = options.profile.maxOpen ?? Infinity;
    const running = new Set<Promise<void>>();
    const stopped = new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    for (let index = 0; index < schedule.length && !stop.signal.aborted; index++) {
      if (!mine(index)) continue;
      const plannedStartMs = startMs + schedule[index]!;
      await sleepUntil(clock, plannedStartMs, stop.signal);
      if (running.size >= maxOpen) {
        capHits++;
        while (running.size >= maxOpen && !stop.signal.aborted) await Promise.race([...running, stopped]);
      }
      // A session the open-session cap held past the duration is not started.
      if (stop.signal.aborted || !before()) break;
      const session = runOne(index, plannedStartMs).finally(() => running.delete(session));
      running.add(session);
    }
    await Promise.all(running);
  } else {
    let next = 0;
    const takeNext = (): number | undefined => {
      while (next < options.maxSessions && !mine(next)) next++;
      return next < options.maxSessions && before() ? next++ : undefined;
    };
    /**
     * A lane: its sessions one after another within each of its windows (from its offset
     * for good, unless staged), or, gated, connecting at the start and streaming from its
     * offset after the connect phase. A window's first session always starts.
     */
    const lane = async (windows: readonly LaneWindow[], gate: StreamGate | undefined): Promise<void> => {
      for (const { fromMs, toMs } of windows) {
        if (!gate) await sleepUntil(clock, startMs + fromMs, stop.signal);
        let plannedStartMs = gate ? startMs : startMs + fromMs;
        const open = (): boolean => clock.now() < startMs + toMs;
        for (let index = takeNext(); index !== undefined && !stop.signal.aborted; index = open() ? takeNext() : undefined) {
          await runOne(index, plannedStartMs, fromMs, gate);
          gate?.ready(); // the runner tells the gate itself; a session that ended without doing so must not hold the others
          gate = undefined; // later sessions of the lane stream once ready
          plannedStartMs = clock.now();
        }
      }
      gate?.ready(); // the lane ran no session (a resumed run had them all, or an abort)
    };
    const profile = options.profile;
    const count = Math.min(options.lanes?.of ?? lanes(profile), options.maxSessions);
    const gated = profile.kind !== 'stages' && options.connectFirst === true && rampUpMs === 0 && (options.phaseSpreadMs ?? 0) > 0;
    const starts = laneStarts(count, rampUpMs > 0 ? rampUpMs : (options.phaseSpreadMs ?? 0));
    const windowsOf = (l: number): LaneWindow[] => (profile.kind === 'stages' ? laneWindows(profile.stages, l) : [{ fromMs: starts[l]!, toMs: Infinity }]);
    const here = options.lanes?.mine.filter((l) => l < count) ?? starts.map((_, l) => l);
    const phase = gated ? connectPhase(here.length, options.streamStart ?? (() => Promise.resolve(clock.now()))) : undefined;
    // Gated lanes all start at the level's start, and take their first sessions in lane order.
    if (phase) await sleepUntil(clock, startMs, stop.signal);
    await Promise.all(here.map((l) => lane(windowsOf(l), phase?.gate(starts[l]!))));
  }

  const endMs = clock.now();
  loopDelay.disable();
  const receiveDelay = options.probe?.take() ?? NO_DELAY;
  clearTimeout(limitTimer);
  options.signal?.removeEventListener('abort', forward);

  // The histogram holds whole sampling intervals; the delay is what exceeds the interval.
  const ms = (ns: number): number => (Number.isFinite(ns) ? Math.max(0, ns / 1e6 - LOOP_SAMPLE_MS) : 0);
  return {
    records: records.sort((a, b) => a.index - b.index),
    startMs,
    endMs,
    ...(stop.signal.aborted ? { stoppedBy: stop.signal.reason as IncompleteReason } : {}),
    capHits,
    eventLoopDelay: {
      meanMs: ms(loopDelay.mean),
      p50Ms: ms(loopDelay.percentile(50)),
      p99Ms: ms(loopDelay.percentile(99)),
      maxMs: ms(loopDelay.max),
    },
    receiveDelay,
  };
}

/** Resolves at clock time `t` (absolute, so waits never drift) or when `signal` aborts. */
async function sleepUntil(clock: Clock, t: number, signal: AbortSignal): Promise<void> {
  for (let wait = t - clock.now(); wait > 0 && !signal.aborted; wait = t - clock.now()) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.ceil(wait));
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
