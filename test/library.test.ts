import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// The package's own name: what a library user imports.
import { METRICS, renderSummary, run, startServer } from 'voxbench';

describe("library entry ('voxbench')", () => {
  it('runs a benchmark against a server it starts, returning the report without writing files', async () => {
    const server = await startServer({ port: 0 });
    try {
      const { report, reportPath } = await run({
        target: server.url,
        model: 'mistralai/Voxtral-Mini-4B-Realtime-2602',
        maxSessions: 1,
        pace: { kind: 'none' },
      });
      assert.equal(reportPath, undefined);
      assert.equal(report.benchmarks[0]!.summary.sessions.completed, 1);
      assert.deepEqual(
        report.metricDefinitions.map((m) => m.name),
        METRICS.map((m) => m.name),
      );
      const text = renderSummary(report, { definitions: true });
      assert.match(
        text,
        /^ {2}ttft_ms \[ms\]: first audio chunk of the turn sent \(streams\), or its request started \(HTTP\) → first non-empty transcript text received\. /m,
      );
    } finally {
      await server.close();
    }
  });
});
