import assert from 'node:assert/strict';
import { it, mock } from 'node:test';
import type { Clock } from '../src/runtime/clock.js';
import { deadlinesOf, untilNextDeadline } from '../src/runtime/deadlines.js';
import { MAX_WAIT_MS, MIN_GAP_MS, SlicedWork } from '../src/runtime/sliced-work.js';

it('does queued work after the caller returns, in slices that let due timers run between them, and the rest on flush', async () => {
  const done: number[] = [];
  /** Each item takes 0.3 ms of CPU, so a 0.5 ms slice does one or two. */
  const work = new SlicedWork<number>((i) => {
    for (const until = performance.now() + 0.3; performance.now() < until;);
    done.push(i);
  }, 0.5);
  for (let i = 0; i < 40; i++) work.push(i);
  assert.equal(done.length, 0, 'nothing runs in the caller');
  // The first slice was queued first, so it runs before this immediate; the timer is armed after it. (Armed
  // before it, a loop that starts over 1 ms late, as on a loaded machine, runs the timer before any slice.)
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(done.length >= 1 && done.length < 40, `the first slice did ${done.length} of 40 items`);
  // 40 items are 12 ms of CPU: a 1 ms timer falls due while slices are left, and must not wait for all of them.
  const timerRanAfter = await new Promise<number>((resolve) => setTimeout(() => resolve(done.length), 0));
  assert.ok(timerRanAfter < 40, `a due timer waited for ${timerRanAfter} of 40 items`);
  work.flush();
  assert.deepEqual(
    done,
    Array.from({ length: 40 }, (_, i) => i),
    'every item, in order, once',
  );
});

it('waits while a deadline of the thread is overdue, but no longer than MAX_WAIT_MS', async () => {
  let now = 0;
  const clock: Clock = { now: () => now, wallStart: new Date(0), origin: 0 };
  const due = deadlinesOf(clock).at(1000, () => {});
  now = 5000; // its timer, a second away in real time, has not fired: the thread is behind
  try {
    assert.ok(untilNextDeadline() <= 0);
    const done: number[] = [];
    let ranAt = NaN;
    const work = new SlicedWork<number>((i) => {
      ranAt = performance.now();
      done.push(i);
    });
    const pushed = performance.now();
    work.push(1);
    while (done.length === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(untilNextDeadline() <= 0, 'still behind: the work ran because it had waited long enough');
    // When it ran, not when this test looked: a loaded machine can only make it later, never earlier.
    assert.ok(ranAt - pushed >= MAX_WAIT_MS, `the work waited for the overdue chunk, ${ranAt - pushed} ms, not less than MAX_WAIT_MS`);
  } finally {
    due.cancel();
  }
  assert.equal(untilNextDeadline(), Infinity);
});

/**
 * Queues `count` items that each take `itemMs` and returns how many the first slice did (an immediate queued
 * after it runs before the next). The items take that long on a stand-in for performance.now, which only they
 * move, so the count is the slicing rule's and not the machine's: a process descheduled mid-slice would end it early.
 */
async function firstSlice(itemMs: number, count: number): Promise<number> {
  let virtual = 0;
  const clock = mock.method(performance, 'now', () => virtual);
  try {
    let done = 0;
    const sliced = new SlicedWork<number>(() => {
      virtual += itemMs;
      done++;
    }, 5);
    for (let i = 0; i < count; i++) sliced.push(i);
    const first = await new Promise<number>((resolve) => setImmediate(() => resolve(done)));
    sliced.flush();
    return first;
  } finally {
    clock.mock.restore();
  }
}

it('fits a slice in the gap before the next deadline, and waits while the gap is shorter than MIN_GAP_MS', async () => {
  let now = 0;
  const clock: Clock = { now: () => now, wallStart: new Date(0), origin: 0 };
  assert.equal(await firstSlice(0.25, 40), 20, 'with no deadline, a 5 ms slice does twenty 0.25 ms items');
  const soon = deadlinesOf(clock).at(0.5, () => {}); // 0.5 ms away on the clock, which stands still
  try {
    assert.equal(await firstSlice(0.25, 40), 2, 'a 0.5 ms gap holds two 0.25 ms items');
    now = 0.5 - MIN_GAP_MS / 2;
    const done: number[] = [];
    // No MAX_WAIT_MS here: a timer the loaded machine runs 100 ms late must not end the wait this checks.
    const waiting = new SlicedWork<number>((i) => done.push(i), 0.5, Infinity);
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
