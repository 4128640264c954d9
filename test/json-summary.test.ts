import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { JsonSummary } from '../src/report/json-summary.js';
import { parseStatistics } from '../src/report/statistics.js';
import { UsageError } from '../src/util/errors.js';
import { CLI, runNode, sharedTarget, tempDir } from './helpers.js';

// What the summary holds does not depend on where the server runs: the file's in-process one saves each run a server thread (see sharedTarget).
const { target, model } = await sharedTarget();
const FAST = ['run', '--target', target, '--model', model, '--pace', '8x', '--max-sessions', '2', '--quiet'];

test('run --json prints a compact summary: levels, headline statistics, the report path, no timelines', async () => {
  const out = join(await tempDir(), 'run');
  const result = await runNode([CLI, ...FAST, '--output-dir', out, '--json']);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(Buffer.byteLength(result.stdout) < 8192, `${Buffer.byteLength(result.stdout)} bytes`);
  const summary = JSON.parse(result.stdout) as JsonSummary;
  assert.equal(summary.schema, 'voxbench.summary');
  assert.equal(summary.report, join(out, 'report.json'));
  assert.equal(summary.page, join(out, 'report.html'), 'the page written by default, named where it is');
  assert.deepEqual(summary.statistics, ['mean', 'p50', 'p90', 'p95', 'p99', 'max']);
  assert.equal(summary.levels.length, 1);
  const level = summary.levels[0]!;
  assert.deepEqual(level.sessions, { total: 2, completed: 2, failed: 0, incomplete: 0 });
  assert.deepEqual(Object.keys(level.metrics.ttft_ms!), ['count', 'mean', 'p50', 'p90', 'p95', 'p99', 'max']);
  assert.ok(Array.isArray(level.slos));
  assert.doesNotMatch(result.stdout, /"timeline"|"sessions": \[/);
});

test('--percentiles chooses the console columns and the JSON statistics, computing those the summary lacks', async () => {
  const dir = await tempDir();
  const console = await runNode([CLI, ...FAST, '--output-dir', join(dir, 'a'), '--percentiles', 'p50,p99.9,max']);
  assert.equal(console.code, 0, console.stderr);
  assert.match(console.stdout, /^metric +unit +count +p50 +p99\.9 +max$/m);
  const json = await runNode([CLI, ...FAST, '--output-dir', join(dir, 'b'), '--json', '--percentiles', 'p95,p99.9', '--outputs', 'json']);
  assert.equal(json.code, 0, json.stderr);
  assert.equal((JSON.parse(json.stdout) as JsonSummary).page, undefined, 'no page named where none was written');
  const ttft = (JSON.parse(json.stdout) as JsonSummary).levels[0]!.metrics.ttft_ms!;
  assert.deepEqual(Object.keys(ttft), ['count', 'p95', 'p99.9']);
  assert.ok(ttft['p99.9']! >= ttft.p95!);
});

test('the default console table keeps its columns', async () => {
  const result = await runNode([CLI, ...FAST, '--output-dir', join(await tempDir(), 'run')]);
  assert.match(result.stdout, /^metric +unit +count +mean +p50 +p90 +p95 +p99 +max$/m);
});

test('a bad --percentiles is a one-line usage error (exit 2)', async () => {
  const result = await runNode([CLI, ...FAST, '--output-dir', join(await tempDir(), 'run'), '--percentiles', 'p50,x']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^voxbench: error: --percentiles takes .*"x"\n$/);
  assert.equal(result.stdout, '');
});

// The same refusal (a UsageError, which the CLI prints as above) for each kind of bad list, in this process: a spawn each costs a CLI start.
for (const bad of ['p0', 'p101', '']) {
  test(`--percentiles ${JSON.stringify(bad)} is refused as a usage error`, () => {
    assert.throws(
      () => parseStatistics(bad),
      (err: Error) => err instanceof UsageError && /^--percentiles takes .*"p?\d*"$/.test(err.message),
    );
  });
}
