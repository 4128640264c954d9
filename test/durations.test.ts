import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { durationSeconds, milliseconds, positiveMilliseconds, seconds, sessionsOrSeconds } from '../src/cli/parse.js';
import { parseStages } from '../src/load/stages.js';
import { CLI, runNode, tempDir } from './helpers.js';

describe('one duration syntax for every flag', () => {
  it('takes ms, s, m and h wherever a duration goes, a bare number being in the flag’s own unit', () => {
    assert.equal(seconds('250ms'), 0.25);
    assert.equal(seconds('90'), 90);
    assert.equal(seconds('1.5m'), 90);
    assert.equal(durationSeconds('0'), 0);
    assert.equal(durationSeconds('500ms'), 0.5);
    assert.equal(milliseconds('250'), 250);
    assert.equal(milliseconds('250ms'), 250);
    assert.equal(milliseconds('1.5s'), 1500);
    assert.equal(positiveMilliseconds('2m'), 120_000);
    assert.deepEqual(sessionsOrSeconds('5'), { sessions: 5 });
    assert.deepEqual(sessionsOrSeconds('10s'), { ms: 10_000 });
    assert.deepEqual(sessionsOrSeconds('500ms'), { ms: 500 });
    assert.deepEqual(parseStages('500ms:2,1m:4'), [
      { durationMs: 500, target: 2 },
      { durationMs: 60_000, target: 4 },
    ]);
  });

  it('refuses what is not a duration with one message', () => {
    for (const bad of ['', 'soon', '5 min', '-1', '1e3']) assert.throws(() => milliseconds(bad), /expected a duration/, bad);
    assert.throws(() => seconds('0ms'), /above 0/);
    assert.throws(() => positiveMilliseconds('0'), /above 0/);
    assert.throws(() => sessionsOrSeconds('2.5'), /number of sessions/);
  });

  it('run --scrape-interval 250ms is accepted as the other ms flags are', async () => {
    const out = await tempDir();
    const args = ['--scrape-interval', '250ms', '--chunk-ms', '0.1s', '--max-sessions', '1', '--pace', '20x', '--outputs', 'json', '--output-dir', out];
    const { code, stderr } = await runNode([CLI, 'run', ...args]);
    assert.equal(code, 0, stderr);
  });
});
