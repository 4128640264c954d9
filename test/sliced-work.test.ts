import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Clock } from '../src/runtime/clock.js';
import { deadlinesOf, untilNextDeadline } from '../src/runtime/deadlines.js';
import { MAX_WAIT_MS, MIN_GAP_MS, SlicedWork } from '../src/runtime/sliced-work.js';

it('does queued work after the caller returns, in slices that let due timers run between them, and the rest on flush', async () => {
  const done: number[] = [];
  /** Each item takes 0.3 ms of CPU, so a 0.5 ms slice does one or two. */
  const work = new SlicedWork<number>((i) => {
    for (const until = performance.now() + 0.3; performance.now() < until; );
    done.push(i);
  }, 0.5);
  for (let i = 0; i < 40; i++) work.push(i);
  assert.equal(done.length, 0, 'nothing runs in the caller');
  const timerRanAfter = await new Promise<number>((resolve) => setTimeout(() => resolve(done.length), 0));
  assert.ok(timerRanAfter >= 1 && timerRanAfter < 40, `a due timer waited for ${timerRanAfter} of 40 items`);
  work.flush();
  assert.deepEqual(done, Array.from({ length: 40 }, (_, i) => i), 'every item, in order, once');
});

it('waits while a deadline of the thread is overdue, but no longer than MAX_WAIT_MS', async () => {
  let now = 0;
  const clock: Clock = { now: () => now, wallStart: new Date(0), origin: 0 };
  const due = deadlinesOf(clock).at(1000, () => {});
  now = 5000; // its timer, a second away in real time, has not fired: the thread is behind
  try {
    assert.ok(untilNextDeadline() <= 0);
    const done: number[] = [];
    const work = new SlicedWork<number>((i) => done.push(i));
    const pushed = performance.now();
    work.push(1);
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(done, [], 'the work waits for the overdue chunk');
    while (done.length === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(untilNextDeadline() <= 0, 'still behind: the work ran because it had waited long enough');
    assert.ok(performance.now() - pushed >= MAX_WAIT_MS, 'not before MAX_WAIT_MS');
  } finally {
    due.cancel();
  }
  assert.equal(untilNextDeadline(), Infinity);
});

/** Queues `count` items and returns how many the first slice did (an immediate queued after it runs before the next). */
async function firstSlice(work: (item: number) => void, count: number): Promise<number> {
  let done = 0;
  const sliced = new SlicedWork<number>((i) => {
    work(i);
    done++;
  }, 5);
  for (let i = 0; i < count; i++) sliced.push(i);
  const first = await new Promise<number>((resolve) => setImmediate(() => resolve(done)));
  sliced.flush();
  return first;
}

it('fits a slice in the gap before the next deadline, and waits while the gap is shorter than MIN_GAP_MS', async () => {
  let now = 0;
  const clock: Clock = { now: () => now, wallStart: new Date(0), origin: 0 };
  const busy = (): void => {
    for (const until = performance.now() + 0.2; performance.now() < until; );
  };
  assert.ok((await firstSlice(busy, 40)) >= 10, 'with no deadline, a 5 ms slice does many 0.2 ms items');
  const soon = deadlinesOf(clock).at(0.5, () => {}); // 0.5 ms away on the clock, which stands still
  try {
    const fitted = await firstSlice(busy, 40);
    assert.ok(fitted >= 1 && fitted <= 3, `a 0.5 ms gap holds two or three 0.2 ms items, not ${fitted}`);
    now = 0.5 - MIN_GAP_MS / 2;
    const done: number[] = [];
    const waiting = new SlicedWork<number>((i) => done.push(i));
    waiting.push(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(done, [], 'a gap shorter than MIN_GAP_MS is left to the chunk');
    soon.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(done, [1], 'once nothing is due, the work runs');
  } finally {
    soon.cancel();
  }
});
