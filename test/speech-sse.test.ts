import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolViolation } from '../src/dialects/dialect.js';
import { SSE_EVENT_LIMIT } from '../src/dialects/event-stream.js';
import { speechBodyDecoder } from '../src/dialects/speech-http.js';
import { pcm16WavHeader } from '../src/audio/wav-header.js';

const PCM = { rate: 24_000, channels: 1 };
const audio = Buffer.alloc(4800, 1).toString('base64');

describe('speech SSE decoding', () => {
  it('splits events across chunks, with or without event: lines, CRLF, and a [DONE]', () => {
    const decoder = speechBodyDecoder('text/event-stream; charset=utf-8', false, PCM);
    const body =
      `event: speech.audio.delta\r\ndata: {"type":"speech.audio.delta","audio":"${audio}"}\r\n\r\n` +
      `data: {"type":"speech.audio.delta","audio":""}\n\n` +
      `data: {"type":"speech.audio.done","usage":{"input_tokens":3,"output_tokens":9,"total_tokens":12}}\n\ndata: [DONE]\n\n`;
    const events = [...body.matchAll(/[\s\S]{1,7}/g)].flatMap(([piece]) => decoder.chunk(Buffer.from(piece)));
    events.push(...decoder.end());
    assert.deepEqual(
      events.map((e) => [e.type, e.kind, e.audioBytes, e.audioMs]),
      [
        ['speech.audio.delta', 'audio', 4800, 100],
        ['speech.audio.delta', 'other', undefined, undefined],
        ['speech.audio.done', 'response_done', undefined, undefined],
      ],
    );
    assert.deepEqual(events[2]!.usage, { source: 'speech.audio.done', values: { input_tokens: 3, output_tokens: 9, total_tokens: 12 } });
    assert.equal(events[0]!.payload, audio);
  });

  it("takes a WAV stream's header-only first delta as no audio, and its rate from the header", () => {
    const decoder = speechBodyDecoder('text/event-stream', true, PCM);
    const events = decoder.chunk(
      Buffer.from(
        `data: {"type":"speech.audio.delta","audio":"${pcm16WavHeader(16_000).toString('base64')}"}\n\ndata: {"type":"speech.audio.delta","audio":"${audio}"}\n\n`,
      ),
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.kind, e.audioMs]),
      [
        ['wav.header', 'other', undefined],
        ['speech.audio.delta', 'audio', 150],
      ],
    );
  });

  it('refuses an event that never ends, beyond its limit, and a body that is not WAV', () => {
    const decoder = speechBodyDecoder('text/event-stream', false, PCM);
    assert.throws(() => decoder.chunk(Buffer.alloc(SSE_EVENT_LIMIT + 1, 'a')), ProtocolViolation);
    assert.throws(() => speechBodyDecoder('audio/wav', false, PCM).chunk(Buffer.from('not a wav file at all')), /the body is not WAV/);
  });

  it('reads an error event with its code', () => {
    const [event] = speechBodyDecoder('text/event-stream', false, PCM).chunk(
      Buffer.from('data: {"type":"speech.audio.error","error":{"message":"boom","type":"server_error","param":null,"code":500}}\n\n'),
    );
    assert.deepEqual(event, { type: 'speech.audio.error', kind: 'error', scope: 'session', code: '500', message: 'boom' });
  });
});
