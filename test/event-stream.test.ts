import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ProtocolViolation, type BodyDecoder, type DecodedEvent } from '../src/dialects/dialect.js';
import { eventStream, SSE_EVENT_LIMIT } from '../src/dialects/event-stream.js';
import { speechBodyDecoder } from '../src/dialects/speech-http.js';
import { transcriptionBodyDecoder } from '../src/dialects/transcription-body.js';
import { run } from '../src/run/run.js';
import { toneWav } from './data-fixtures.js';
import { tempDir } from './helpers.js';

/** Two-, three- and four-byte characters (and a combining mark) in several scripts. */
const MULTILINGUAL = 'café naïve über señor 東京 Ωmega Привет مرحبا नमस्ते 한국어 e\u0301 😀🎉';

/** The data of every event in `body`, delivered in the pieces `cuts` (byte offsets) make. */
function readCut(body: Buffer, cuts: number[]): string[] {
  const stream = eventStream();
  const events: string[] = [];
  let from = 0;
  for (const cut of [...cuts, body.length]) {
    events.push(...stream.chunk(body.subarray(from, cut)));
    from = cut;
  }
  return [...events, ...stream.end()];
}

const readIn = (body: Buffer, size: number): string[] => readCut(body, Array.from({ length: Math.ceil(body.length / size) }, (_, i) => i * size).slice(1));

describe('the event-stream parser', () => {
  const words = MULTILINGUAL.split(' ');
  for (const [name, eol] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    it(`keeps every character whole, each split at every byte offset, with ${name} line endings`, () => {
      const body = Buffer.from(words.map((word) => `data: ${word}${eol}${eol}`).join(''));
      for (let cut = 1; cut < body.length; cut++) assert.deepEqual(readCut(body, [cut]), words, `cut at byte ${cut}`);
      for (const size of [1, 2, 3, 5]) assert.deepEqual(readIn(body, size), words, `${size}-byte pieces`);
    });
  }

  it('skips comments and other fields, joins data lines with LF, and reads the field forms the spec allows', () => {
    const body = [
      '\uFEFF: a comment, then a keep-alive',
      ':',
      '',
      'event: transcription.chunk',
      'id: 7',
      'retry: 1000',
      'data: first line',
      'data:second line',
      'data',
      'data:  two spaces keep one',
      'dataX: not a data field',
      '',
      '',
      'event: no data, so no event',
      '',
      'data: {"text":"ends with the body"}',
    ].join('\n');
    const events = ['first line\nsecond line\n\n two spaces keep one', '{"text":"ends with the body"}'];
    assert.deepEqual(readIn(Buffer.from(body), 4), events);
    assert.deepEqual(readIn(Buffer.from(body.replaceAll('\n', '\r\n')), 1), events, 'CRLF, its CR and LF in separate reads');
  });

  it('mixes line endings in one stream, and a lone CR at the end of a read is still a line end', () => {
    const body = Buffer.from('data: a\r\rdata: b\n\ndata: c\r\n\r\ndata: d\r\n\n');
    assert.deepEqual(readIn(body, 100), ['a', 'b', 'c', 'd']);
    assert.deepEqual(readCut(body, [8]), ['a', 'b', 'c', 'd'], 'data: a\\r | \\rdata: b');
    assert.deepEqual(readCut(Buffer.from('data: a\r'), []), ['a']);
  });

  it('a character cut off by the end of the body becomes one replacement character, not an error', () => {
    const body = Buffer.from('data: 東');
    assert.deepEqual(readCut(body.subarray(0, body.length - 1), []), ['\uFFFD']);
  });

  for (const [shape, piece] of [
    ['one endless line', Buffer.alloc(64 * 1024, 'a')],
    ['endless data lines', Buffer.from(`data: ${'0123456789abcdef'.repeat(4)}\n`.repeat(1000))],
    ['endless empty data lines', Buffer.from('data:\n'.repeat(10_000))],
  ] as const) {
    it(`refuses an event that never ends as soon as it passes the limit (${shape}), without reading on`, () => {
      const stream = eventStream();
      stream.chunk(Buffer.from('data: '));
      let read = 0;
      assert.throws(
        () => {
          for (;;) {
            read += piece.length;
            stream.chunk(piece);
          }
        },
        (err: Error) => err instanceof ProtocolViolation && /server-sent event passed 16777216 bytes/.test(err.message),
      );
      // Refused in the read that passed the limit, within one read of it: all the parser holds is part of what it read.
      assert.ok(Math.abs(read - SSE_EVENT_LIMIT) <= piece.length, `refused after ${read} bytes`);
    });
  }

  it('counts what an event holds in bytes as read, and what it drops not at all', () => {
    const limit = 30;
    assert.throws(() => eventStream(limit).chunk(Buffer.from(`data: ${'東'.repeat(11)}`)), /passed 30 bytes/, '33 bytes of data');
    assert.deepEqual(
      eventStream(limit).chunk(Buffer.from(`data: ${'東'.repeat(7)}\n\n`.repeat(5))),
      Array(5).fill('東'.repeat(7)),
      'each event under the limit: 28 bytes, field name and line end included',
    );
    assert.deepEqual(eventStream(limit).chunk(Buffer.from(`: ${'x'.repeat(20)}\n`.repeat(5) + 'data: ok\n\n')), ['ok'], 'comments are not kept');
  });
});

describe('both HTTP dialects read event streams through the one parser', () => {
  /** The events `decoder` makes of `body` in 1-byte reads: every character split at every offset, CR endings too. */
  const byteByByte = (decoder: BodyDecoder, body: string): DecodedEvent[] => [
    ...[...Buffer.from(body)].flatMap((byte) => decoder.chunk(Buffer.from([byte]))),
    ...decoder.end(),
  ];

  it('transcription: the final is the multilingual text, whole, with CR line endings', () => {
    const body = `data: ${JSON.stringify({ type: 'transcript.text.done', text: MULTILINGUAL })}\r\r`;
    assert.equal(byteByByte(transcriptionBodyDecoder('sse'), body).find((e) => e.kind === 'text_final')?.text, MULTILINGUAL);
  });

  it("speech: an error event's message is whole, with CR line endings", () => {
    const body = `data: ${JSON.stringify({ type: 'speech.audio.error', error: { message: MULTILINGUAL } })}\r\r`;
    assert.equal(byteByByte(speechBodyDecoder('text/event-stream', false, { rate: 24_000, channels: 1 }), body)[0]?.message, MULTILINGUAL);
  });
});

/** A server on port 0 that answers every request, once its body is in, with `answer`; closed when the file ends. */
async function hostileServer(answer: (res: http.ServerResponse) => Promise<void>): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    // An answer that fails cuts the connection, which the test sees as a failed request.
    req.on('end', () => void answer(res).catch(() => res.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A dataset of one second of tone whose reference is `text`. */
async function oneSample(text: string): Promise<string> {
  const dir = await tempDir();
  await writeFile(join(dir, 'sample.wav'), toneWav(1));
  await writeFile(join(dir, 'sample.txt'), text);
  return dir;
}

const streamRun = async (target: string, data: string) =>
  (await run({ target, data, protocol: 'vllm-transcriptions', model: 'm', transcription: { stream: true }, maxSessions: 1 })).report.benchmarks[0]!;

describe('event streams end to end', () => {
  it('a vLLM transcription stream sent in 3-byte pieces comes back exact: every character whole, WER 0', { timeout: 60_000 }, async () => {
    const chunk = (content: string) => `data: ${JSON.stringify({ object: 'transcription.chunk', choices: [{ delta: { content } }] })}\n\n`;
    const body = Buffer.from(MULTILINGUAL.split(/(?= )/).map(chunk).join('') + 'data: [DONE]\n\n');
    const target = await hostileServer(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let at = 0; at < body.length; at += 3) {
        await new Promise((resolve) => res.write(body.subarray(at, at + 3), resolve));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      res.end();
    });
    const { sessions, summary } = await streamRun(target, await oneSample(MULTILINGUAL));
    assert.deepEqual(summary.sessions, { total: 1, completed: 1, failed: 0, incomplete: 0 }, JSON.stringify(summary.failures));
    assert.equal(sessions[0]!.timeline.received.find((e) => e.kind === 'text_final')?.text, MULTILINGUAL);
    assert.equal(summary.quality.wer, 0);
  });

  it('an event that never ends fails the request as a protocol violation once it passes the limit, the connection closed', { timeout: 60_000 }, async () => {
    let written = 0;
    let closed!: Promise<void>;
    const target = await hostileServer(async (res) => {
      closed = new Promise((resolve) => res.once('close', resolve));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ');
      const piece = Buffer.alloc(64 * 1024, 'a');
      // Written as the socket drains, so `written` is what the client's side took.
      while (!res.destroyed && written < 20 * SSE_EVENT_LIMIT) {
        written += piece.length;
        if (!res.write(piece)) await Promise.race([once(res, 'drain'), closed]);
      }
      res.end();
    });
    const { sessions } = await streamRun(target, await oneSample('never'));
    await closed;
    const { outcome } = sessions[0]!;
    assert.equal(outcome.status, 'failed');
    if (outcome.status !== 'failed') return;
    assert.equal(outcome.failure.class, 'protocol_violation');
    assert.match(outcome.failure.message, /server-sent event passed 16777216 bytes/);
    // The limit, and what the sockets' buffers held: not the 20 limits the server would send.
    assert.ok(written < 3 * SSE_EVENT_LIMIT, `the server wrote ${written} bytes`);
  });
});
