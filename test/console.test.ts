import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { renderSummary } from '../src/report/console.js';
import type { Report } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { sharedTarget } from './helpers.js';

// What these tests check of a run's report does not depend on where the server runs (see sharedTarget).
const LOCAL = await sharedTarget();

/** The rows of the per-level table: the lines after its header, up to the blank line. */
function levelRows(text: string): string[] {
  const lines = text.split('\n');
  const header = lines.findIndex((l) => l.startsWith('level '));
  assert.ok(header >= 0, 'a per-level table');
  const end = lines.indexOf('', header);
  return lines.slice(header, end);
}

describe('console summary of several levels', () => {
  let report: Report;

  before(async () => {
    ({ report } = await run({ ...LOCAL, sweep: [1, 2, 4], slos: ['p95(ttft_ms)<5000'], pace: { kind: 'realtime', speed: 8 } }));
    // A capacity search runs its levels in probe order: 1, 4, then 2 to bisect.
    const [one, two, four] = report.benchmarks;
    report.benchmarks = [one!, four!, two!];
    report.capacity = {
      by: 'concurrency',
      slos: report.config.slos,
      answer: 2,
      failsAt: 4,
      probes: [
        { level: 1, pass: true },
        { level: 4, pass: false },
        { level: 2, pass: true },
      ],
    };
  });

  it('lists levels by increasing load, with their throughput', () => {
    const [header, ...rows] = levelRows(renderSummary(report));
    assert.match(header!, /^level\s+sessions\s+error rate\s+audio s\/s\s+p50 /);
    assert.deepEqual(
      rows.map((r) => r.split(/\s+/)[0]),
      ['concurrent@1', 'concurrent@2', 'concurrent@4'],
    );
    const byLabel = new Map(report.benchmarks.map((b) => [b.label, b.summary.throughput.audioSPerWallS.toFixed(2)]));
    for (const row of rows) assert.equal(row.split(/\s+/)[3], byLabel.get(row.split(/\s+/)[0]!), row);
  });

  it('writes each capacity level with its unit, never a bare "4 failed"', () => {
    const text = renderSummary(report);
    assert.match(
      text,
      /^capacity: 2 concurrent sessions, the most that met p95\(ttft_ms\)<5000 \(there p95\(ttft_ms\) \d+ ms \(95% CI [^)]*\); at 4 concurrent sessions they failed; 3 levels probed\)$/m,
    );
    assert.doesNotMatch(text, /\b\d+ failed;/);
    const none = structuredClone(report);
    none.capacity = { ...none.capacity!, answer: null, failsAt: 1, probes: [{ level: 1, pass: false }] };
    assert.match(renderSummary(none), /^capacity: no level met p95\(ttft_ms\)<5000, not even the first, 1 concurrent session \(1 level probed\)$/m);
  });
});
