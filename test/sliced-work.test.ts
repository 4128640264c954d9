import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Clock } from '../src/clock.js';
import { behindSchedule, deadlinesOf } from '../src/deadlines.js';
import { MAX_WAIT_MS, SlicedWork } from '../src/sliced-work.js';

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
    assert.ok(behindSchedule());
    const done: number[] = [];
    const work = new SlicedWork<number>((i) => done.push(i));
    const pushed = performance.now();
    work.push(1);
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(done, [], 'the work waits for the overdue chunk');
    while (done.length === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(behindSchedule(), 'still behind: the work ran because it had waited long enough');
    assert.ok(performance.now() - pushed >= MAX_WAIT_MS, 'not before MAX_WAIT_MS');
  } finally {
    due.cancel();
  }
  assert.ok(!behindSchedule());
});
