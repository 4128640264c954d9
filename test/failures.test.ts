import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import type { HeldReport } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import type { Failure } from '../src/timeline/types.js';
import { tempDir, testServer } from './helpers.js';

const FAST = { pace: { kind: 'none' }, maxSessions: 2 } as const;

/** Runs against `target`, checks the report on disk, and returns the failures it holds. */
async function failuresOf(options: RunOptions): Promise<{ failures: Failure[]; report: HeldReport }> {
  const outputDir = await tempDir();
  const { report, reportPath } = await run({ ...FAST, outputDir, ...options });
  const onDisk = JSON.parse(await readFile(reportPath!, 'utf8')) as HeldReport;
  assert.equal(onDisk.benchmarks[0]!.sessions.length, report.benchmarks[0]!.sessions.length, 'the report is written');
  const failures = report.benchmarks[0]!.sessions.map((s) => {
    assert.equal(s.outcome.status, 'failed');
    return (s.outcome as { failure: Failure }).failure;
  });
  assert.equal(report.benchmarks[0]!.summary.errorRate, 1);
  return { failures, report };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A WebSocket server on a free port that does `onConnection` with each client. */
async function rawServer(onConnection: (ws: import('ws').WebSocket) => void): Promise<string> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => wss.once('listening', resolve));
  wss.on('connection', onConnection);
  const { after } = await import('node:test');
  after(() => new Promise((resolve) => wss.close(resolve)));
  return `ws://127.0.0.1:${(wss.address() as { port: number }).port}/v1/realtime`;
}

describe('failures are classified, counted and reported', () => {
  it('server down: connect_refused at the connect stage', async () => {
    const target = `ws://127.0.0.1:${await freePort()}/v1/realtime`;
    const { failures, report } = await failuresOf({ target, model: 'm' });
    for (const f of failures) {
      assert.equal(f.class, 'connect_refused');
      assert.equal(f.stage, 'connect');
      assert.match(f.message, /^connection refused by 127\.0\.0\.1:\d+ \(is the server running\?\)$/);
    }
    assert.deepEqual(report.benchmarks[0]!.summary.sessions, { total: 2, completed: 0, failed: 2, incomplete: 0 });
  });

  it('wrong model: server_error with the server code model_not_found', async () => {
    const server = await testServer();
    const { failures, report } = await failuresOf({ target: server.url, model: 'no/such-model' });
    for (const f of failures) {
      assert.equal(f.class, 'server_error');
      assert.equal(f.code, 'model_not_found');
      assert.equal(f.message, 'server error model_not_found: The model `no/such-model` does not exist.');
    }
    const errors = report.benchmarks[0]!.sessions[0]!.timeline.received.filter((e) => e.kind === 'error');
    assert.equal(errors[0]!.code, 'model_not_found');
  });

  it('a server that never finalizes: timeout at the final stage', async () => {
    const server = await testServer({ faults: [[{ name: 'never-finalize' }]] });
    const { failures } = await failuresOf({ target: server.url, model: 'mistralai/Voxtral-Mini-4B-Realtime-2602', timeouts: { finalMs: 300 } });
    for (const f of failures) {
      assert.equal(f.class, 'timeout');
      assert.equal(f.stage, 'final');
      assert.equal(f.message, 'timed out after 300 ms waiting for the final transcript');
    }
  });

  it('HTTP status at upgrade: upgrade_status with the status', async () => {
    const server = await testServer({ faults: [[{ name: 'upgrade', status: 503 }]] });
    const { failures } = await failuresOf({ target: server.url, model: 'm' });
    for (const f of failures) {
      assert.equal(f.class, 'upgrade_status');
      assert.equal(f.httpStatus, 503);
      assert.equal(f.stage, 'connect');
    }
  });

  it('wrong API key: upgrade_status 401, and the key is not in the report', async () => {
    const server = await testServer({ apiKey: 'right-key' });
    const { failures, report } = await failuresOf({ target: server.url, model: 'm', apiKey: 'sk-wrong-key-123' });
    assert.equal(failures[0]!.httpStatus, 401);
    assert.equal(report.config.apiKey, '[redacted]');
    assert.ok(!JSON.stringify(report).includes('sk-wrong-key-123'));
  });

  it('abnormal close: abnormal_close with the close code', async () => {
    const server = await testServer({ faults: [[{ name: 'close', code: 1011, at: 'streaming' }]] });
    const { failures } = await failuresOf({ target: server.url, model: 'mistralai/Voxtral-Mini-4B-Realtime-2602', pace: { kind: 'realtime', speed: 4 } });
    for (const f of failures) {
      assert.equal(f.class, 'abnormal_close');
      assert.equal(f.closeCode, 1011);
      assert.equal(f.stage, 'streaming');
    }
  });

  it('a frame that is not JSON: protocol_violation', async () => {
    const target = await rawServer((ws) => ws.send('hello'));
    const { failures } = await failuresOf({ target, model: 'm' });
    assert.equal(failures[0]!.class, 'protocol_violation');
    assert.equal(failures[0]!.stage, 'ready');
    assert.equal(failures[0]!.message, 'server sent a frame that is not JSON: "hello"');
  });

  it('no session.created: timeout at the ready stage', async () => {
    const target = await rawServer(() => {});
    const { failures } = await failuresOf({ target, model: 'm', timeouts: { readyMs: 200 } });
    assert.equal(failures[0]!.class, 'timeout');
    assert.equal(failures[0]!.stage, 'ready');
  });

  it('an interrupted run keeps what finished and marks the rest incomplete', async () => {
    const server = await testServer();
    const controller = new AbortController();
    const { report } = await run({
      target: server.url,
      model: 'mistralai/Voxtral-Mini-4B-Realtime-2602',
      maxSessions: 3,
      pace: { kind: 'realtime', speed: 2 },
      signal: controller.signal,
      onSessionEnd: () => controller.abort('interrupted'),
    });
    assert.equal(report.stoppedBy, 'interrupted');
    assert.deepEqual(report.benchmarks[0]!.summary.sessions, { total: 1, completed: 1, failed: 0, incomplete: 0 });
  });

  it('max-seconds cuts running sessions as incomplete, not failed', async () => {
    const server = await testServer();
    const { report } = await run({
      target: server.url,
      model: 'mistralai/Voxtral-Mini-4B-Realtime-2602',
      profile: { kind: 'concurrent', concurrency: 2 },
      maxSeconds: 0.5,
    });
    assert.equal(report.benchmarks[0]!.stoppedBy, 'max_seconds');
    assert.equal(report.stoppedBy, undefined, 'the run itself was not interrupted');
    const { sessions, incomplete, errorRate } = report.benchmarks[0]!.summary;
    assert.deepEqual(sessions, { total: 2, completed: 0, failed: 0, incomplete: 2 });
    assert.deepEqual(incomplete, [{ reason: 'max_seconds', stage: 'streaming', count: 2 }]);
    assert.equal(errorRate, null);
  });
});
