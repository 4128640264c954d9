import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { LoadProfile } from '../load/profiles.js';
import { samplesSize, type StoredSamples } from '../metrics/sample-store.js';
import { StoredMetrics, type Layout } from '../metrics/stored-metrics.js';
import type { SpeechAnalysis } from '../timeline/types.js';
import { digest, type DigestedSession, type FigureSettings } from './build.js';
import { upgradeRecord } from './migrate.js';
import { onClockOf, splitSessionLog, streamSessionLog, DamagedLogError, type LogPlace, type LogRange, type LoggedSession } from './session-log.js';

/** How a log's sessions are digested: on the report's clock, scored by its settings, with the after-run check's findings it kept. */
export interface DigestContext {
  startedAt: string;
  settings: Pick<FigureSettings, 'normalizer' | 'diarization'>;
  /** The findings the report kept for a session of a level, as [level, index, findings]. */
  analyses: Array<[string, number, SpeechAnalysis[]]>;
}

/** A logged session, in log order: its level and index, and its digest (made when first asked for, on the reading thread). */
export interface LoggedDigest {
  level: string;
  profile: LoadProfile;
  index: number;
  session(): DigestedSession;
}

/** Below this much log per thread, one thread reads it all: a thread costs about 0.3 s of CPU to start. */
const MIN_BYTES_PER_THREAD = 64 << 20;

/**
 * The reading thread's share of the log against a worker's: it also takes in every
 * worker's digests and keeps them all, so with equal parts the worker thread finished
 * about a second before it at 100,000 sessions on two cores (issue 38).
 */
const OWN_WEIGHT = 0.8;

/** Most threads a render uses. */
const MAX_THREADS = 8;

/** The threads that read a log of `size` bytes when not told: one per 64 MiB, up to one per core. */
export function defaultThreads(size: number): number {
  return Math.max(1, Math.min(availableParallelism(), MAX_THREADS, Math.floor(size / MIN_BYTES_PER_THREAD)));
}

/**
 * The sessions of the log at `path`, digested, in log order; undefined when there is no
 * log. Reading and digesting is most of a large render (issue 38), and each session's
 * digest depends on it alone, so a large log is cut into parts read at once: this
 * thread digests the first (a smaller one), worker threads the others, and their
 * digests come back in batches, in order. `threads` defaults to the machine's cores,
 * fewer for a small log; 1 reads on this thread only. `keepTimelines` (a merge) always
 * reads on this thread.
 */
export async function digestLog(
  path: string,
  context: DigestContext,
  keepTimelines: boolean,
  threads?: number,
): Promise<AsyncIterable<LoggedDigest> | undefined> {
  const size = await stat(path).then(
    (s) => s.size,
    () => undefined,
  );
  if (size === undefined) return undefined;
  const wanted = threads ?? defaultThreads(size);
  if (keepTimelines || wanted <= 1) return digestRange(path, context, keepTimelines);
  const [own, ...others] = await splitSessionLog(path, size, [OWN_WEIGHT, ...Array<number>(wanted - 1).fill(1)]);
  const parts = others.map((range) => digestOnWorker(path, range, context));
  return (async function* () {
    try {
      yield* (await digestRange(path, context, false, own))!;
      for (const part of parts) yield* part.digests();
    } finally {
      await Promise.all(parts.map((part) => part.stop()));
    }
  })();
}

/** The digests of a range of the log (the whole log by default) on this thread. */
async function digestRange(path: string, context: DigestContext, keepTimelines: boolean, range?: LogRange): Promise<AsyncIterable<LoggedDigest> | undefined> {
  const stream = await streamSessionLog(path, range);
  if (!stream) return undefined;
  const findings = findingsOf(context);
  return (async function* () {
    for await (const { entry, at } of stream) {
      yield {
        level: entry.level,
        profile: entry.profile,
        index: entry.record.index,
        session: () => digestEntry(entry, at, context, findings, keepTimelines),
      };
    }
  })();
}

/** The findings the report kept, by level and index. */
export function findingsOf(context: DigestContext): Map<string, SpeechAnalysis[]> {
  return new Map(context.analyses.map(([level, index, analysis]) => [`${level}\u0000${index}`, analysis]));
}

/** A logged session on the report's clock, with the findings the report kept for it, digested. */
export function digestEntry(
  entry: LoggedSession,
  at: LogPlace,
  context: DigestContext,
  findings: Map<string, SpeechAnalysis[]>,
  keepTimelines: boolean,
): DigestedSession {
  const record = onClockOf({ ...entry, record: upgradeRecord(entry.record) }, context.startedAt);
  const analysis = findings.get(`${entry.level}\u0000${record.index}`);
  return digest(analysis ? { ...record, timeline: { ...record.timeline, analysis } } : record, context.settings, keepTimelines, at);
}

/** What a worker thread is given: its part of the log, and how to digest it. */
export interface DigestWork {
  path: string;
  range: LogRange;
  context: DigestContext;
}

/**
 * A batch of digests as a worker thread sends it: the sessions' metric values and
 * samples moved out of its store into one array (transferred, not copied), which the
 * reading thread keeps as a chunk of its own store.
 */
export interface DigestBatch {
  sessions: Array<{ level: string; profile: LoadProfile; index: number; session: PackedSession }>;
  values: Float64Array;
}

type PackedSession = Omit<DigestedSession, 'figures'> & {
  figures: Omit<DigestedSession['figures'], 'values'> & {
    values: { metrics: { layout: Layout; at: number }; samples: { names: readonly string[]; at: number } };
  };
};

/** From a worker thread: a batch, the end of its part, or why it stopped. */
export type FromDigestWorker = { type: 'batch'; batch: DigestBatch } | { type: 'done' } | { type: 'error'; name: string; message: string };

/** Sessions a worker sends at once. */
export const BATCH_SESSIONS = 256;

/** Packs digests for sending: their values copied into one array, in order. */
export function packBatch(digests: ReadonlyArray<{ level: string; profile: LoadProfile; index: number; session: DigestedSession }>): DigestBatch {
  let size = 0;
  for (const { session } of digests) size += session.figures.values.metrics.size + samplesSize(session.figures.values.samples);
  const values = new Float64Array(size);
  let at = 0;
  const sessions = digests.map(({ level, profile, index, session }) => {
    const { metrics, samples } = session.figures.values;
    const metricsAt = at;
    at = copyInto(values, at, metrics.chunk, metrics.at, metrics.size);
    const samplesAt = at;
    at = copyInto(values, at, samples.chunk, samples.at, samplesSize(samples));
    const packed = { metrics: { layout: metrics.layout, at: metricsAt }, samples: { names: samples.names, at: samplesAt } };
    return { level, profile, index, session: { ...session, figures: { ...session.figures, values: packed } } };
  });
  return { sessions, values };
}

function copyInto(into: Float64Array, at: number, from: Float64Array, start: number, length: number): number {
  into.set(from.subarray(start, start + length), at);
  return at + length;
}

/** The digests of a batch received, their values where they came in. */
function unpackBatch({ sessions, values }: DigestBatch): LoggedDigest[] {
  return sessions.map(({ level, profile, index, session }) => {
    const { metrics, samples } = session.figures.values;
    const stored: StoredSamples = { names: samples.names, chunk: values, at: samples.at };
    const digested: DigestedSession = {
      ...session,
      figures: { ...session.figures, values: { metrics: new StoredMetrics(metrics.layout, values, metrics.at), samples: stored } },
    };
    return { level, profile, index, session: () => digested };
  });
}

/** A worker thread digesting a part of the log: its digests in order, as they come. */
function digestOnWorker(path: string, range: LogRange, context: DigestContext): { digests(): AsyncGenerator<LoggedDigest>; stop(): Promise<void> } {
  const work: DigestWork = { path, range, context };
  const worker = new Worker(new URL('./digest-worker.js', import.meta.url), { workerData: work });
  const queue: FromDigestWorker[] = [];
  let wake: (() => void) | undefined;
  let ended: Error | undefined;
  worker.on('message', (message: FromDigestWorker) => {
    queue.push(message);
    wake?.();
  });
  worker.on('error', (err) => {
    ended ??= err;
    wake?.();
  });
  worker.on('exit', (code) => {
    ended ??= new Error(`the thread reading ${path} from byte ${range.start} exited with code ${code} before it finished`);
    wake?.();
  });
  return {
    async *digests() {
      for (;;) {
        const message = queue.shift();
        if (message === undefined) {
          if (ended) throw ended;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        if (message.type === 'done') return;
        if (message.type === 'error') throw message.name === 'DamagedLogError' ? new DamagedLogError(message.message) : new Error(message.message);
        yield* unpackBatch(message.batch);
      }
    },
    stop: async () => {
      await worker.terminate();
    },
  };
}
