/**
 * A helper thread of `pooledRatioInterval`: draws the resamples it is given into the
 * shared draws, then marks itself done.
 */
import { workerData } from 'node:worker_threads';
import { drawRatios, HELPER_DONE, type HelperWork } from './bootstrap.js';

const { work, done } = workerData as { work: HelperWork; done: Int32Array };
drawRatios(work.units, work.from, work.to, work.draws);
Atomics.store(done, 0, HELPER_DONE);
Atomics.notify(done, 0);
