import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serveRunMetrics } from '../src/live/run-metrics.js';
import { run } from '../src/run/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { CLI, runNode, tempDir } from './helpers.js';
import { parsePrometheusText } from './prometheus-text.js';

describe('run --metrics-port', () => {
  it("serves the run's sessions, latencies and send lag in Prometheus format", async () => {
    const live = await serveRunMetrics({ host: '127.0.0.1', port: 0 });
    try {
      let during = '';
      await run({
        maxSessions: 3,
        pace: { kind: 'realtime', speed: 8 },
        onRunStart: (config) => live.runStart(config),
        onSessionStart: () => live.sessionStart(),
        onSessionEnd: (record) => {
          live.sessionEnd(record);
          if (record.index === 0) void fetch(`${live.endpoint.url}/metrics`).then(async (r) => (during = await r.text()));
        },
      });
      const families = parsePrometheusText(await (await fetch(`${live.endpoint.url}/metrics`)).text());
      const value = (name: string, sample: string, labels: Record<string, string>) =>
        families.get(name)!.samples.find((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
      assert.equal(value('voxbench_sessions_total', 'voxbench_sessions_total', { outcome: 'completed', protocol: 'vllm', model: DEFAULT_MODEL }), 3);
      assert.equal(value('voxbench_sessions_open', 'voxbench_sessions_open', { protocol: 'vllm' }), 0);
      assert.equal(value('voxbench_latency_seconds', 'voxbench_latency_seconds_count', { metric: 'ttft' }), 3);
      assert.ok(value('voxbench_latency_samples_seconds', 'voxbench_latency_samples_seconds_count', { metric: 'send_lag' })! > 30, 'a send lag per chunk');
      assert.match(during, /voxbench_sessions_total\{[^}]*outcome="completed"[^}]*\} 1\n/, 'live while the run goes on');
    } finally {
      await live.close();
    }
  });

  it('is wired into voxbench run', async () => {
    const dir = await tempDir();
    const { code, stderr } = await runNode([CLI, 'run', '--max-sessions', '1', '--pace', 'none', '--metrics-port', '127.0.0.1:0', '--output-dir', dir]);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^metrics on http:\/\/127\.0\.0\.1:\d+\/metrics$/m);
  });
});
