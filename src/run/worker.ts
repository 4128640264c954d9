/**
 * A worker thread's side of `--workers`: it prepares its own copy of the audio, then
 * runs its share of each benchmark level on the main thread's clock and posts every
 * session record as it ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { alignedClock } from '../runtime/clock.js';
import type { RunOptions } from '../config/options.js';
import { resolveSettings } from '../config/settings.js';
import { createRunContext, loadRunDataset, runLevel } from './run-context.js';
import { replayOf } from './replay-plan.js';
import type { SessionRecord } from '../timeline/types.js';
import type { Execution } from './execute.js';
import type { LoadProfile } from '../load/profiles.js';
import { shareOf } from '../load/shards.js';
import { NO_DELAY } from '../runtime/delay.js';
import { SlicedWork } from '../runtime/sliced-work.js';
import { shareChannelClaims } from '../session/channel-claims.js';
import { startStampProbe } from '../runtime/stamp-probe.js';

export interface WorkerInit {
  options: RunOptions;
  target: string;
  worker: number;
  count: number;
  clockOrigin: number;
  wallStart: string;
  /** The server sessions the run's sessions hold, shared by its threads (session/channel-claims.ts). */
  channelClaims: SharedArrayBuffer;
}

/** `skip`: sessions a resumed run already has. */
export type ToWorker =
  | { type: 'run'; profile: LoadProfile; maxSessions: number; skip: number[]; startAtMs: number }
  /** The level's connect phase is over in every worker: lanes stream from `atMs` plus their phase. */
  | { type: 'stream'; atMs: number }
  | { type: 'abort'; reason: string };
export type FromWorker =
  | { type: 'ready' }
  /** Every lane of this worker has its first session ready (or ended): its connect phase is over. */
  | { type: 'connected' }
  | { type: 'started' }
  | { type: 'record'; record: SessionRecord }
  | { type: 'done'; execution: Omit<Execution, 'records'> }
  | { type: 'error'; message: string };

const init = workerData as WorkerInit;
shareChannelClaims(init.channelClaims);
const port = parentPort!;
const post = (message: FromWorker): void => port.postMessage(message);
/** Ended sessions' records, copied to the main thread (a structured clone of tens of KB each) off the deadlines of the sessions still streaming. */
const records = new SlicedWork<SessionRecord>((record) => post({ type: 'record', record }));

try {
  const settings = resolveSettings(init.options);
  const dataset = await loadRunDataset(init.options);
  // A replay is planned here as on the main thread (same shape, corpus and seed, so the same plan): session i plays what it does there.
  const context = await createRunContext(settings, dataset, init.options.replay ? replayOf(init.options, settings, dataset).sessions : undefined);
  const clock = alignedClock(init.clockOrigin, new Date(init.wallStart));
  // Started before the thread says it is ready, so its start overlaps no level (execute.ts); it ends with the thread.
  const probe = await startStampProbe();
  let abort = new AbortController();
  let streamFrom: ((atMs: number) => void) | undefined;
  // A level that throws rejects here, unhandled: the worker dies with the error, which the pool reports.
  const onMessage = async (message: ToWorker): Promise<void> => {
    if (message.type === 'abort') return abort.abort(message.reason);
    if (message.type === 'stream') return streamFrom?.(message.atMs);
    const share = shareOf(message.profile, init.worker, init.count);
    const skip = new Set(message.skip);
    abort = new AbortController();
    if (!share.profile) {
      const now = clock.now();
      return post({ type: 'done', execution: { startMs: now, endMs: now, capHits: 0, eventLoopDelay: NO_DELAY, receiveDelay: NO_DELAY } });
    }
    const { records: _, ...execution } = await runLevel(context, settings, init.target, {
      profile: share.profile,
      maxSessions: message.maxSessions,
      clock,
      signal: abort.signal,
      shard: (index) => share.owns(index) && !skip.has(index),
      ...(share.lanes ? { lanes: share.lanes } : {}),
      startAtMs: message.startAtMs,
      streamStart: () => {
        post({ type: 'connected' });
        return new Promise((resolve) => (streamFrom = resolve));
      },
      onSessionStart: () => post({ type: 'started' }),
      onSessionEnd: (record) => records.push(record),
      probe,
    });
    records.flush(); // every record before the level's end
    post({ type: 'done', execution });
  };
  port.on('message', (message: ToWorker) => void onMessage(message));
  post({ type: 'ready' });
} catch (err) {
  post({ type: 'error', message: (err as Error).message });
}
