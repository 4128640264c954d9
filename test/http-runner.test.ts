import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { monotonicClock } from '../src/runtime/clock.js';
import type { DecodedEvent, HttpDialect } from '../src/dialects/dialect.js';
import { transcriptionPolicy } from '../src/dialects/stt-policy.js';
import { httpAgents } from '../src/session/http-agents.js';
import { runHttpSession, type PreparedRequest } from '../src/session/http-runner.js';
import { DEFAULT_TIMEOUTS } from '../src/session/runner.js';
import { sessionView } from '../src/views/session-view.js';

/**
 * A small imaginary dialect: POST a text, get its words back as a server-sent event
 * stream (`data: {"delta": "..."}`, then `data: {"text": "..."}` and `data: [DONE]`).
 */
const echoDialect: HttpDialect = {
  name: 'echo-sse',
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
    let pending = '';
    const events = (text: string): DecodedEvent[] =>
      text.split('\n\n').flatMap((block): DecodedEvent[] => {
        const data = block.replace(/^data: /, '');
        if (data === '' || data === '[DONE]') return [];
        const event = JSON.parse(data) as { delta?: string; text?: string };
        return event.text === undefined
          ? [{ type: 'delta', kind: 'text_delta', channel: 'input_transcript', text: event.delta ?? '' }]
          : [{ type: 'done', kind: 'text_final', channel: 'input_transcript', text: event.text }];
      });
    return {
      chunk(data) {
        pending += data.toString('utf8');
        const end = pending.lastIndexOf('\n\n');
        if (end < 0) return [];
        const complete = pending.slice(0, end);
        pending = pending.slice(end + 2);
        return events(complete);
      },
      end: () => events(pending),
    };
  },
};

/** A server that streams each request's words back; `/cut` stops mid-stream, `/missing` answers 404. */
async function echoServer(): Promise<string> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such model"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const words = body.split(' ');
      words.forEach((word, i) =>
        setTimeout(
          () => {
            const last = i === words.length - 1;
            // A cut stream: the last word reaches the client, then the connection drops.
            res.write(`data: ${JSON.stringify({ delta: ` ${word}` })}\n\n`, () => {
              if (last && req.url === '/cut') setTimeout(() => res.socket?.destroy(), 20);
            });
            if (last && req.url !== '/cut') res.end(`data: ${JSON.stringify({ text: body })}\n\ndata: [DONE]\n\n`);
          },
          10 * (i + 1),
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const request = (path: string, text: string): PreparedRequest => ({
  input: { kind: 'text', sampleId: text, split: 'default', text, chars: text.length },
  request: { ...echoDialect.request({ kind: 'text', text }), path },
});

describe('HTTP runner', () => {
  const run = httpAgents();
  after(() => run.destroy());
  const agents = run.of('http://localhost');

  it('stamps each request, its upload, headers and every body chunk, and reuses the connection', async () => {
    const url = await echoServer();
    const clock = monotonicClock();
    const { timeline, outcome } = await runHttpSession({
      url,
      headers: {},
      dialect: echoDialect,
      agents,
      inputs: [request('/v1/echo', 'one two three'), request('/v1/echo', 'four')],
      plannedStartMs: 0,
      timeouts: DEFAULT_TIMEOUTS,
      clock,
    });
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(timeline.transport.kind, 'http');
    const requests = timeline.transport.kind === 'http' ? timeline.transport.requests : [];
    assert.equal(requests.length, 2);
    for (const r of requests) {
      assert.equal(r.status, 200);
      assert.ok(r.startMs <= r.uploadEndMs! && r.uploadEndMs! <= r.headersMs! && r.headersMs! <= r.endMs!, JSON.stringify(r));
    }
    assert.deepEqual(
      requests.map((r) => r.reusedConnection),
      [false, true],
    );
    const [first, second] = sessionView(timeline).inputs;
    assert.equal(first!.transcript.text, 'one two three');
    assert.deepEqual(
      first!.transcript.textEvents.map((e) => e.text),
      [' one', ' two', ' three'],
    );
    assert.equal(second!.transcript.text, 'four');
    assert.ok(first!.transcript.textEvents[0]!.t >= requests[0]!.headersMs!, 'text is stamped as it arrives');
    assert.deepEqual(
      timeline.sent.map((f) => [f.input, f.control]),
      [
        [0, 'request'],
        [1, 'request'],
      ],
    );
    assert.equal(timeline.counters.bytesSent, 'one two three'.length + 'four'.length);
  });

  it('classifies an error status, with the start of its body as the message', async () => {
    const url = await echoServer();
    const { outcome, timeline } = await runHttpSession({
      url,
      headers: {},
      dialect: echoDialect,
      agents,
      inputs: [request('/missing', 'x')],
      plannedStartMs: 0,
      timeouts: DEFAULT_TIMEOUTS,
      clock: monotonicClock(),
    });
    assert.equal(outcome.status, 'failed');
    if (outcome.status !== 'failed') return;
    assert.equal(outcome.failure.class, 'http_status');
    assert.equal(outcome.failure.httpStatus, 404);
    assert.match(outcome.failure.message, /HTTP 404: \{"error":"no such model"\}/);
    assert.equal(timeline.transport.kind === 'http' && timeline.transport.requests[0]!.status, 404);
  });

  it('calls a body that ends before the response is complete a cut stream, keeping what arrived', async () => {
    const url = await echoServer();
    const { outcome, timeline } = await runHttpSession({
      url,
      headers: {},
      dialect: echoDialect,
      agents,
      inputs: [request('/cut', 'a b')],
      plannedStartMs: 0,
      timeouts: DEFAULT_TIMEOUTS,
      clock: monotonicClock(),
    });
    assert.equal(outcome.status, 'failed');
    if (outcome.status !== 'failed') return;
    assert.equal(outcome.failure.class, 'stream_cut');
    assert.equal(outcome.failure.stage, 'body');
    assert.deepEqual(
      timeline.received.map((e) => e.text),
      [' a', ' b'],
    );
  });

  it('refused connections fail at upload with their class', async () => {
    const { outcome } = await runHttpSession({
      url: 'http://127.0.0.1:9',
      headers: {},
      dialect: echoDialect,
      agents,
      inputs: [request('/v1/echo', 'x')],
      plannedStartMs: 0,
      timeouts: DEFAULT_TIMEOUTS,
      clock: monotonicClock(),
    });
    assert.equal(outcome.status === 'failed' && outcome.failure.class, 'connect_refused');
  });
});
