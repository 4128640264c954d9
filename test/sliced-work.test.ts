import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SlicedWork } from '../src/sliced-work.js';

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
