import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI, runNode, tempDir } from './helpers.js';

describe('a run you can watch (spawned)', () => {
  it('exit 3 ends with one line saying why', async () => {
    const out = await tempDir();
    const result = await runNode([CLI, 'run', '--quiet', '--target', 'ws://127.0.0.1:9/v1/realtime', '--model', 'm', '--max-sessions', '2', '--output-dir', out]);
    assert.equal(result.code, 3);
    assert.equal(result.stderr, 'no session completed: 2 failed, connect_refused\n');
  });

  it('exit 4 ends with one line naming the SLO, its measured value and the level', async () => {
    const out = await tempDir();
    const result = await runNode([CLI, 'run', '--quiet', '--pace', '8x', '--max-sessions', '2', '--slo', 'p95(ttft_ms)<1', '--output-dir', out]);
    assert.equal(result.code, 4);
    assert.match(result.stderr, /^SLO failed: p95\(ttft_ms\)<1 measured \d+(\.\d+)? at synchronous\n$/);
  });

  it('lists every file it wrote', async () => {
    const out = await tempDir();
    const result = await runNode([CLI, 'run', '--quiet', '--pace', '8x', '--max-sessions', '1', '--outputs', 'md,csv', '--output-dir', out]);
    assert.equal(result.code, 0, result.stderr);
    const files = ['report.json', 'turns.csv', 'sessions.csv', 'levels.csv', 'summary.md', 'sessions.jsonl'].map((f) => join(out, f));
    assert.match(result.stdout, new RegExp(`^Wrote: ${files.join(', ')}$`, 'm'));
  });
});
