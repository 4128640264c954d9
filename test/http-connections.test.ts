import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { monotonicClock } from '../src/runtime/clock.js';
import type { HttpDialect } from '../src/dialects/dialect.js';
import { transcriptionPolicy } from '../src/dialects/stt-policy.js';
import { run } from '../src/run/run.js';
import { httpAgents } from '../src/session/http-agents.js';
import { runHttpSession, type PreparedRequest } from '../src/session/http-runner.js';
import { DEFAULT_TIMEOUTS } from '../src/session/runner.js';
import type { HttpExchange, SessionTimeline } from '../src/timeline/types.js';

/** How the hostile server ends a connection after its answer, never saying `Connection: close`. */
type Closing = 'at-once' | 'on-next-request';

/**
 * A small server that speaks just enough HTTP/1.1 and ends every connection after one
 * answer without `Connection: close`: at once (many proxies and small servers), or by
 * dropping the next request the client sends on it (an idle keep-alive timeout that
 * wins the race). `/reset` resets the connection before any status; `/cut` sends half
 * of a body and drops the connection. Every other request gets `{"text":"hello"}`.
 */
async function hostileServer(closing: Closing): Promise<{ origin: string; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = Buffer.alloc(0);
    let answered = false;
    socket.on('data', (data: Buffer) => {
      if (answered) return void socket.destroy(); // the request that comes after the answer: dropped unanswered
      pending = Buffer.concat([pending, data]);
      const headEnd = pending.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = pending.subarray(0, headEnd).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (pending.length < headEnd + 4 + length) return;
      const path = head.split(' ')[1];
      answered = true;
      if (path === '/reset') return void socket.resetAndDestroy();
      if (path === '/cut') return void socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"text":"he');
      const body = '{"text":"hello"}';
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
      if (closing === 'at-once') socket.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

/** POST a text, get `{"text": ...}` back as the input's final transcript. */
const jsonDialect: HttpDialect = {
  name: 'json-text',
  task: 'batch_stt',
  transport: 'http',
  turnDetection: 'client',
  sampleRate: 16_000,
  policy: () => transcriptionPolicy('client'),
  request: (input) => ({
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'text/plain' },
    body: input.kind === 'text' ? Buffer.from(input.text) : input.file,
  }),
  bodyDecoder: () => {
    let body = '';
    return {
      chunk: (data) => ((body += data.toString('utf8')), []),
      end: () => [{ type: 'transcription', kind: 'text_final', channel: 'input_transcript', text: (JSON.parse(body) as { text: string }).text }],
    };
  },
};

const request = (path: string): PreparedRequest => ({
  input: { kind: 'text', sampleId: path, split: 'default', text: path, chars: path.length },
  request: { ...jsonDialect.request({ kind: 'text', text: 'hi' }), path },
});

const requestsOf = (timeline: SessionTimeline): HttpExchange[] => (timeline.transport.kind === 'http' ? timeline.transport.requests : []);

describe('HTTP connections against a server that closes them after each answer', () => {
  const agents = httpAgents();
  after(() => agents.destroy());
  const session = (origin: string, paths: string[]) =>
    runHttpSession({
      url: origin,
      headers: {},
      dialect: jsonDialect,
      agents: agents.of(origin),
      inputs: paths.map(request),
      plannedStartMs: 0,
      timeouts: DEFAULT_TIMEOUTS,
      clock: monotonicClock(),
    });

  it('a request whose kept-alive connection died before any answer goes once more on a new one, and says so', async () => {
    const server = await hostileServer('on-next-request');
    const { outcome, timeline } = await session(server.origin, ['/a', '/b', '/c', '/d']);
    assert.deepEqual(outcome, { status: 'completed' });
    const requests = requestsOf(timeline);
    // A retry's connection is not pooled (the server would drop it too), so the next request opens its own.
    assert.deepEqual(
      requests.map((r) => [r.reusedConnection, r.retries, r.status]),
      [
        [false, undefined, 200],
        [false, 1, 200],
        [false, undefined, 200],
        [false, 1, 200],
      ],
    );
    for (const r of requests)
      assert.ok(
        r.startMs <= r.uploadEndMs! && r.uploadEndMs! <= r.headersMs! && r.headersMs! <= r.endMs!,
        `the answering attempt's times: ${JSON.stringify(r)}`,
      );
    assert.deepEqual(
      timeline.sent.map((f) => [f.input, f.control]),
      [
        [0, 'request'],
        [1, 'request'],
        [2, 'request'],
        [3, 'request'],
      ],
      'one request each, however often sent',
    );
    assert.equal(timeline.counters.framesSent, 6, 'the counters count every send');
    assert.equal(server.connections(), 4, 'each answer on a connection of its own');
  });

  it('a reset before the status is connection_lost; retried once when the connection was reused', async () => {
    const server = await hostileServer('on-next-request');
    const fresh = await session(server.origin, ['/reset']);
    assert.equal(fresh.outcome.status, 'failed');
    if (fresh.outcome.status !== 'failed') return;
    const { failure } = fresh.outcome;
    assert.deepEqual([failure.class, failure.stage, failure.closeCode], ['connection_lost', 'status', undefined]);
    assert.match(failure.message, /^connection lost before the response status: /);
    assert.equal(requestsOf(fresh.timeline)[0]!.retries, undefined, 'a new connection is not retried');
    // Pools one live connection, then resets the request that reuses it, and its retry.
    const reused = await session(server.origin, ['/a', '/reset']);
    assert.equal(reused.outcome.status === 'failed' && reused.outcome.failure.class, 'connection_lost');
    assert.deepEqual(
      requestsOf(reused.timeline).map((r) => [r.reusedConnection, r.retries]),
      [
        [false, undefined],
        [false, 1],
      ],
    );
  });

  it('a body cut short is stream_cut at body, never retried and without a close code', async () => {
    const server = await hostileServer('at-once');
    const { outcome, timeline } = await session(server.origin, ['/cut']);
    assert.equal(outcome.status, 'failed');
    if (outcome.status !== 'failed') return;
    assert.equal(outcome.failure.class, 'stream_cut');
    assert.equal(outcome.failure.stage, 'body');
    assert.equal(outcome.failure.closeCode, undefined);
    assert.equal(requestsOf(timeline)[0]!.retries, undefined);
  });

  for (const closing of ['at-once', 'on-next-request'] as const) {
    it(`a run completes every session (closing ${closing}), recording new and reused connections and retries`, async () => {
      const server = await hostileServer(closing);
      const { report } = await run({ protocol: 'vllm-transcriptions', target: server.origin, model: 'whisper', maxSessions: 6 });
      const { summary, sessions } = report.benchmarks[0]!;
      assert.deepEqual(summary.sessions, { total: 6, completed: 6, failed: 0, incomplete: 0 }, JSON.stringify(summary.failures));
      const requests = sessions.flatMap((s) => requestsOf(s.timeline));
      for (const r of requests) assert.equal(typeof r.reusedConnection, 'boolean', 'new or reused, recorded per request');
      // Every connection serves one answer, so a request either went on a new one or was retried on one.
      for (const r of requests) assert.ok(!r.reusedConnection, JSON.stringify(r));
      assert.equal(summary.corpus.connection_reuse, 0);
      const retries = requests.reduce((n, r) => n + (r.retries ?? 0), 0);
      assert.equal(server.connections(), requests.length, 'each answer on a connection of its own');
      if (closing === 'on-next-request') assert.equal(retries, 3, 'every second session finds the pooled connection dead');
    });
  }
});

describe('the HTTP client warmed before the clock', () => {
  it("runs a request of its own before the clock starts, so the first session's figures carry no client start-up, and the target sees none of it", async () => {
    const server = await hostileServer('at-once');
    const targetHost = new URL(server.origin).host;
    const seen: string[] = [];
    const onRequest = (message: unknown): void => {
      seen.push((message as { request: ClientRequest }).request.getHeader('host') === targetHost ? 'target' : 'warm-up');
    };
    subscribe('http.client.request.start', onRequest);
    try {
      const { report } = await run({
        protocol: 'vllm-transcriptions',
        target: server.origin,
        model: 'whisper',
        maxSessions: 2,
        onRunStart: () => seen.push('clock'),
      });
      assert.equal(report.benchmarks[0]!.summary.sessions.completed, 2);
    } finally {
      unsubscribe('http.client.request.start', onRequest);
    }
    const clock = seen.indexOf('clock');
    assert.ok(clock > 0 && seen.slice(0, clock).every((s) => s === 'warm-up'), seen.join(' '));
    assert.ok(
      seen.slice(clock + 1).every((s) => s === 'target'),
      seen.join(' '),
    );
    assert.equal(server.connections(), 2, 'the target saw the two sessions only');
  });
});
