import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { WebSocketServer, type WebSocket } from 'ws';
import { createDialect, loadDialects, type Protocol } from '../src/dialects/index.js';
import { decoderOf, ProtocolViolation, type HttpDialect, type WebSocketDialect } from '../src/dialects/dialect.js';
import { monotonicClock } from '../src/runtime/clock.js';
import { TEXT_LIMITS } from '../src/dialects/text-limits.js';
import { chunkAudio, type PreparedTurn } from '../src/session/prepare.js';
import { DEFAULT_TIMEOUTS } from '../src/session/runner.js';
import { runWebSocketSession } from '../src/session/ws-runner.js';
import { startProxy } from '../src/proxy/proxy.js';
import { renderSummary } from '../src/report/console.js';
import { run } from '../src/run/run.js';
import { sessionView } from '../src/views/session-view.js';
import { messageText, tempDir } from './helpers.js';

await loadDialects();

const SPEECH = { model: 'm', responseFormat: 'pcm', streamFormat: 'audio', outputRate: 24_000 } as const;
const dialectOf = (protocol: Protocol) => createDialect(protocol, { model: 'm', speech: SPEECH, turnDetection: { type: 'none' } });

/** What a server may put where text belongs that is not text. */
const WRONG = [null, 42, { text: 'x' }, ['x']] as const;

/** One second of silence as one input, framed for `dialect`. */
function silence(dialect: WebSocketDialect): PreparedTurn {
  const { chunks, audioMs } = chunkAudio(Buffer.alloc(dialect.sampleRate * 2), dialect.sampleRate, 100, dialect);
  return { sampleId: 'silence', split: 'default', reference: null, chunks, audioMs, speechStartMs: 0, speechEndMs: audioMs, eosSource: 'audio_end' };
}

/** A server on port 0 that opens each session with `ready` and answers the client's end of input with `answer`. */
async function answeringServer(ready: object, endsInput: RegExp, answer: (ws: WebSocket) => void): Promise<string> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (ws) => {
    ws.send(JSON.stringify(ready));
    ws.on('message', (data) => {
      if (endsInput.test(messageText(data))) answer(ws);
    });
  });
  after(() => {
    for (const client of server.clients) client.terminate();
    return new Promise((resolve) => server.close(resolve));
  });
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/realtime`;
}

const runAgainst = (url: string, dialect: WebSocketDialect, finalMs = 2_000) =>
  runWebSocketSession({
    url,
    headers: {},
    dialect,
    inputs: [silence(dialect)],
    pace: { kind: 'none' },
    plannedStartMs: 0,
    timeouts: { ...DEFAULT_TIMEOUTS, finalMs },
    clock: monotonicClock(),
  });

/** Sends the events in one TCP write, so the client reads them in one go, whatever the machine's load. */
function sendTogether(ws: WebSocket, events: object[]): void {
  const socket = (ws as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
  socket.cork();
  for (const event of events) ws.send(JSON.stringify(event));
  socket.uncork();
}

describe('a text field of the wrong type is a protocol violation, never empty text', () => {
  const vllm = dialectOf('vllm') as WebSocketDialect;
  for (const value of WRONG) {
    it(`vLLM: a transcription.done whose text is ${JSON.stringify(value)} fails the session`, async () => {
      const url = await answeringServer({ type: 'session.created' }, /"final":true/, (ws) => {
        ws.send(JSON.stringify({ type: 'transcription.delta', delta: 'hello' }));
        ws.send(JSON.stringify({ type: 'transcription.done', text: value }));
      });
      const { outcome } = await runAgainst(url, vllm);
      assert.equal(outcome.status, 'failed');
      if (outcome.status !== 'failed') return;
      assert.equal(outcome.failure.class, 'protocol_violation');
      assert.match(outcome.failure.message, /transcription\.done whose "text" is .*, not text/);
    });
  }

  it('vLLM: a delta whose text is a number fails the session', async () => {
    const url = await answeringServer({ type: 'session.created' }, /"final":true/, (ws) => {
      ws.send(JSON.stringify({ type: 'transcription.delta', delta: 42 }));
      ws.send(JSON.stringify({ type: 'transcription.done', text: 'hello' }));
    });
    const { outcome } = await runAgainst(url, vllm);
    assert.equal(outcome.status === 'failed' && outcome.failure.class, 'protocol_violation');
    assert.match(outcome.status === 'failed' ? outcome.failure.message : '', /"delta" is number 42, not text/);
  });

  const openai = dialectOf('openai') as WebSocketDialect;
  for (const value of WRONG) {
    it(`OpenAI Realtime transcription: a completed transcript of ${JSON.stringify(value)} fails the session`, async () => {
      const url = await answeringServer({ type: 'session.created' }, /input_audio_buffer\.commit/, (ws) => {
        ws.send(JSON.stringify({ type: 'input_audio_buffer.committed', item_id: 'item-1' }));
        ws.send(JSON.stringify({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item-1', transcript: value }));
      });
      const { outcome } = await runAgainst(url, openai);
      assert.equal(outcome.status, 'failed');
      if (outcome.status !== 'failed') return;
      assert.equal(outcome.failure.class, 'protocol_violation');
      assert.match(outcome.failure.message, /input_audio_transcription\.completed whose "transcript" is/);
    });
  }

  /** Every other dialect's delta and final, with `value` where its text goes. */
  const frames: Array<[Protocol, (value: unknown) => object]> = [
    ['openai', (value) => ({ type: 'conversation.item.input_audio_transcription.delta', item_id: 'i', delta: value })],
    ['assemblyai', (value) => ({ type: 'Turn', turn_order: 0, end_of_turn: true, transcript: value })],
    ['elevenlabs-scribe', (value) => ({ message_type: 'partial_transcript', text: value })],
    ['elevenlabs-scribe', (value) => ({ message_type: 'committed_transcript', text: value })],
    ['livepeer', (value) => ({ type: 'delta', delta: value })],
    ['livepeer', (value) => ({ type: 'done', transcript: value })],
    ['speechmatics', (value) => ({ message: 'AddTranscript', metadata: { transcript: value }, results: [] })],
    ['deepgram', (value) => ({ type: 'Results', is_final: true, from_finalize: true, channel: { alternatives: [{ transcript: value }] } })],
    ['openai-realtime', (value) => ({ type: 'response.output_audio_transcript.delta', response_id: 'r', delta: value })],
    ['openai-realtime', (value) => ({ type: 'response.output_text.done', response_id: 'r', text: value })],
    ['vllm-omni-duplex', (value) => ({ type: 'response.output_audio_transcript.done', response_id: 'r', transcript: value })],
    ['openai-realtime-tts', (value) => ({ type: 'response.output_audio_transcript.delta', response_id: 'r', delta: value })],
  ];
  it('every other dialect: its deltas and finals', () => {
    for (const [protocol, frame] of frames) {
      for (const value of WRONG) {
        const decode = decoderOf(dialectOf(protocol) as WebSocketDialect);
        const data = Buffer.from(JSON.stringify(frame(value)));
        assert.throws(() => decode(data, false), ProtocolViolation, `${protocol} ${JSON.stringify(frame(value))}`);
      }
      // Text is still read as text.
      assert.doesNotThrow(() => decoderOf(dialectOf(protocol) as WebSocketDialect)(Buffer.from(JSON.stringify(frame('hello'))), false), protocol);
    }
  });

  it('batch transcription: a JSON body, an event stream delta and its done', () => {
    const batch = dialectOf('openai-transcriptions') as HttpDialect;
    for (const value of WRONG) {
      const json = batch.bodyDecoder(200, 'application/json');
      json.chunk(Buffer.from(JSON.stringify({ text: value })));
      assert.throws(() => json.end(), ProtocolViolation);
      for (const event of [
        { type: 'transcript.text.delta', delta: value },
        { type: 'transcript.text.done', text: value },
        { object: 'transcription.chunk', choices: [{ delta: { content: value } }] },
      ]) {
        const sse = batch.bodyDecoder(200, 'text/event-stream');
        assert.throws(() => sse.chunk(Buffer.from(`data: ${JSON.stringify(event)}\n\n`)), ProtocolViolation, JSON.stringify(event));
      }
    }
  });
});

describe('text after the answer is over', () => {
  it('a vLLM delta after transcription.done is an after_final anomaly, in no figure', async () => {
    const vllm = dialectOf('vllm') as WebSocketDialect;
    const url = await answeringServer({ type: 'session.created' }, /"final":true/, (ws) => {
      sendTogether(ws, [
        { type: 'transcription.delta', delta: 'hello' },
        { type: 'transcription.done', text: 'hello' },
        { type: 'transcription.delta', delta: ' world' },
      ]);
    });
    const { outcome, timeline } = await runAgainst(url, vllm);
    assert.deepEqual(outcome, { status: 'completed' });
    const late = timeline.received.find((e) => e.text === ' world');
    assert.ok(late, 'the late delta is kept in the timeline');
    const view = sessionView(timeline);
    assert.deepEqual(
      view.anomalies.map((a) => [a.reason, a.event.text]),
      [['after_final', ' world']],
    );
    const input = view.inputs[0]!;
    assert.deepEqual(
      input.transcript.textEvents.map((e) => e.text),
      ['hello'],
    );
    assert.equal(input.transcript.text, 'hello');
  });
});

describe('cut text is not a transcript', () => {
  it('a final cut to the limit fails the session as answer_too_large, saying what was cut', async () => {
    const vllm = dialectOf('vllm') as WebSocketDialect;
    const huge = 'word '.repeat(20_000); // 100,000 characters
    const url = await answeringServer({ type: 'session.created' }, /"final":true/, (ws) => {
      ws.send(JSON.stringify({ type: 'transcription.done', text: huge }));
    });
    const { outcome, timeline } = await runAgainst(url, vllm);
    assert.equal(outcome.status, 'failed');
    if (outcome.status !== 'failed') return;
    assert.equal(outcome.failure.class, 'answer_too_large');
    assert.match(outcome.failure.message, /transcription\.done \(input 1\) carried 100,000 characters of text, cut to the 65,536 an event keeps/);
    assert.equal(timeline.received.find((e) => e.kind === 'text_final')?.text?.length, TEXT_LIMITS.eventChars);
  });

  it('voxbench proxy: the observed session fails as the benchmark does', async () => {
    const vllm = dialectOf('vllm') as WebSocketDialect;
    const url = await answeringServer({ type: 'session.created' }, /"final":true/, (ws) => {
      ws.send(JSON.stringify({ type: 'transcription.done', text: 'word '.repeat(20_000) }));
    });
    const proxy = await startProxy({ listen: { host: '127.0.0.1', port: 0 }, upstream: new URL(url).origin, protocol: 'vllm', outputDir: await tempDir() });
    await runAgainst(`${proxy.url}/v1/realtime`, vllm);
    for (const deadline = Date.now() + 5_000; proxy.open() > 0 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 10));
    const observed = (await proxy.close()).report!.benchmarks[0]!.sessions[0]!.outcome;
    assert.equal(observed.status === 'failed' && observed.failure.class, 'answer_too_large');
  });

  it("the built-in server's oversized delta: the console names the cut, and no WER is made of it", async () => {
    const { report } = await run({
      maxSessions: 2,
      pace: { kind: 'none' },
      server: { faults: [[{ name: 'oversized-frame', bytes: 200_000, at: 'streaming' }]] },
    });
    const summary = renderSummary(report);
    assert.match(
      summary,
      /failed ×2: answer_too_large at final: the server's transcription\.delta \(input 1\) carried 199,9\d\d characters of text, cut to the 65,536/,
    );
    assert.match(summary, /^No session completed: 2 failed/);
    assert.doesNotMatch(summary, /WER/, 'no word error rate is made of a cut text');
  });
});

describe('frames that arrived are recorded', () => {
  /**
   * A vLLM server on a thread of its own, so that it writes while the client's thread is
   * busy: it answers the final commit with a final, and 30 ms later with two more.
   */
  async function repeatingServer(): Promise<string> {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const { WebSocketServer } = require('ws');
       const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
       server.on('listening', () => parentPort.postMessage(server.address().port));
       server.on('connection', (ws) => {
         ws.send(JSON.stringify({ type: 'session.created' }));
         ws.on('message', (data) => {
           if (!String(data).includes('"final":true')) return;
           const done = JSON.stringify({ type: 'transcription.done', text: 'hello' });
           ws.send(done);
           setTimeout(() => { ws.send(done); ws.send(done); }, 30);
         });
       });`,
      { eval: true },
    );
    after(() => worker.terminate());
    const port = await new Promise<number>((resolve) => worker.once('message', resolve));
    return `ws://127.0.0.1:${port}/v1/realtime`;
  }

  it('finals that reach the client after it decided to end, before its close, are in the timeline as anomalies', async () => {
    const vllm = dialectOf('vllm') as WebSocketDialect;
    // The client's thread is held 300 ms by the first final, as a loaded machine holds it: the repeats arrive meanwhile, and the session decides to end after.
    const loaded: WebSocketDialect = {
      ...vllm,
      decode: (data, isBinary) => {
        const events = vllm.decode(data, isBinary);
        if (events.some((e) => e.kind === 'text_final')) {
          const until = performance.now() + 300;
          while (performance.now() < until);
        }
        return events;
      },
    };
    const { outcome, timeline } = await runAgainst(await repeatingServer(), loaded);
    assert.deepEqual(outcome, { status: 'completed' });
    const finals = timeline.received.filter((e) => e.kind === 'text_final');
    assert.equal(finals.length, 3, 'every final received before the close');
    const close = timeline.transport.kind === 'websocket' ? timeline.transport.close : undefined;
    assert.ok(close && finals.every((e) => e.t <= close.t), 'all before the close');
    assert.deepEqual(
      sessionView(timeline).anomalies.map((a) => a.reason),
      ['unrequested', 'unrequested'],
    );
  });
});
