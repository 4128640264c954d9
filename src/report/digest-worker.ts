/**
 * A worker thread of `digestLog`: digests its part of a session log and sends the
 * digests back in batches, in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { LoadProfile } from '../load/profiles.js';
import type { DigestedSession } from './build.js';
import { BATCH_SESSIONS, digestEntry, findingsOf, packBatch, type DigestWork, type FromDigestWorker } from './digest-log.js';
import { streamSessionLog } from './session-log.js';

const { path, range, context } = workerData as DigestWork;
const port = parentPort!;
const send = (message: FromDigestWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

try {
  const findings = findingsOf(context);
  let digests: Array<{ level: string; profile: LoadProfile; index: number; session: DigestedSession }> = [];
  const flush = (): void => {
    const batch = packBatch(digests);
    send({ type: 'batch', batch }, [batch.values.buffer as ArrayBuffer]);
    digests = [];
  };
  for await (const { entry, at } of (await streamSessionLog(path, range)) ?? []) {
    digests.push({ level: entry.level, profile: entry.profile, index: entry.record.index, session: digestEntry(entry, at, context, findings, false) });
    if (digests.length === BATCH_SESSIONS) flush();
  }
  if (digests.length > 0) flush();
  send({ type: 'done' });
} catch (err) {
  send({ type: 'error', name: (err as Error).name, message: (err as Error).message });
}
