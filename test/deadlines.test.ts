import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { Clock } from '../src/runtime/clock.js';
import { Deadlines } from '../src/runtime/deadlines.js';

describe('one scheduler for every session', () => {
  it('fires every deadline due in one pass of one timer, in order, and drops cancelled ones', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const timeouts = mock.method(globalThis, 'setTimeout');
    try {
      const clock: Clock = { now: () => Date.now(), wallStart: new Date(0), origin: 0 };
      const deadlines = new Deadlines(clock);
      const fired: string[] = [];
      const at = (name: string, due: number) => deadlines.at(due, () => fired.push(`${name}@${clock.now()}`));
      at('c', 30);
      at('a', 10);
      at('b', 10);
      at('gone', 20).cancel();
      // A deadline that schedules its next one, as a session's chunks do.
      deadlines.at(10, () => at('a2', 40));
      mock.timers.tick(9);
      assert.deepEqual(fired, []);
      mock.timers.tick(1);
      assert.deepEqual([...fired].sort(), ['a@10', 'b@10']);
      for (let t = 0; t < 30; t++) mock.timers.tick(1);
      assert.deepEqual(fired.slice(2), ['c@30', 'a2@40']);
      assert.ok(timeouts.mock.callCount() <= 5, `${timeouts.mock.callCount()} timers armed for 5 deadlines`);
    } finally {
      mock.restoreAll(); // before the timers, so setTimeout is restored to the real one
      mock.timers.reset();
    }
  });
});

describe('a pass of the scheduler', () => {
  it('fires what was due when it began: a deadline that falls due during the pass waits for the next turn of the event loop, so sockets are read in between', async () => {
    const clock: Clock = { now: () => performance.now(), wallStart: new Date(0), origin: 0 };
    const deadlines = new Deadlines(clock);
    const order: string[] = [];
    const due = clock.now() + 5;
    const alive = setTimeout(() => {}, 10_000); // the scheduler's timer is unref'd: a socket would hold the process
    await new Promise<void>((resolve) => {
      deadlines.at(due, () => {
        order.push('a');
        const started = clock.now();
        while (clock.now() < started + 2); // sending took 2 ms
        setImmediate(() => order.push('the loop turned'));
        // Fell due during this pass, after it began.
        deadlines.at(clock.now() - 1, () => {
          order.push('b');
          resolve();
        });
      });
    });
    clearTimeout(alive);
    assert.deepEqual(order, ['a', 'the loop turned', 'b']);
  });
});

describe('work that can wait', () => {
  it('waits while a deadline is overdue and goes once every due one has fired; a cancelled deadline holds nothing up', async () => {
    let now = 0;
    const clock: Clock = { now: () => now, wallStart: new Date(0), origin: 0 };
    const deadlines = new Deadlines(clock);
    const order: string[] = [];
    deadlines.at(1, () => order.push('cancelled')).cancel();
    deadlines.at(5, () => order.push('chunk'));
    now = 2;
    assert.equal(deadlines.overdue(), false, 'the cancelled deadline is not waited for');
    now = 5;
    assert.equal(deadlines.overdue(), true);
    await deadlines.caughtUp().then(() => order.push('session start'));
    assert.deepEqual(order, ['chunk', 'session start']);
    assert.equal(deadlines.overdue(), false);
  });
});
