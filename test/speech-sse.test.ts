import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Base64Audio } from '../src/audio/base64-audio.js';
import { audioFrameReader, parseEventObject, ProtocolViolation } from '../src/dialects/dialect.js';
import { interpretConversationEvent } from '../src/dialects/s2s-events.js';
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
    // The audio is read off the event's bytes: kept as those bytes, never made a string.
    const payload = events[0]!.payload;
    assert.ok(payload instanceof Base64Audio, 'base64 bytes, not a string');
    assert.equal(payload.base64.toString('latin1'), audio);
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

describe('audio read off a JSON frame’s bytes (audioFrameReader)', () => {
  const isDelta = (e: { type: string }): boolean => e.type === 'response.output_audio.delta';
  const reader = audioFrameReader('delta', parseEventObject, isDelta);
  const read = (frame: string) => reader(Buffer.from(frame));

  it('gives what parsing the frame whole gives, the audio as its bytes', () => {
    const frame = JSON.stringify({ type: 'response.output_audio.delta', response_id: 'r_1', delta: audio, server_event_seq: 7, note: 'café' });
    const { event, audio: bytes } = read(frame);
    assert.ok(bytes instanceof Base64Audio);
    assert.equal(bytes.base64.toString('latin1'), audio);
    const whole = JSON.parse(frame) as Record<string, unknown>;
    delete whole.delta;
    assert.deepEqual(event, whole);
    assert.equal(bytes.decodedBytes, 4800);
  });

  for (const [why, frame] of [
    ['a short frame', JSON.stringify({ type: 'response.output_audio.delta', delta: 'AAAA' })],
    ['the key in a nested object, the top-level one after it', `{"type":"response.output_audio.delta","meta":{"delta":"${audio}"},"delta":"${audio}"}`],
    ['the key duplicated, the last one winning', `{"type":"response.output_audio.delta","delta":"${audio}","delta":"QUJD"}`],
    ['an escape in the value', `{"type":"response.output_audio.delta","delta":"${audio}\\/"}`],
    ['a character that is not ASCII in the value', `{"type":"response.output_audio.delta","delta":"${audio}é"}`],
    ['a key whose name ends in an escaped quote and the key', `{"type":"response.output_audio.delta","x\\"delta":"${audio}","delta":"QUJD"}`],
    ['the event not audio', JSON.stringify({ type: 'response.output_audio_transcript.delta', delta: 'x'.repeat(2000) })],
  ] as const) {
    it(`parses the frame whole where the cut would not be exact: ${why}`, () => {
      const { event, audio: bytes } = read(frame);
      assert.equal(bytes, undefined);
      assert.deepEqual(event, JSON.parse(frame));
    });
  }

  it('keeps the whole parse’s error for a frame that is not JSON', () => {
    assert.throws(() => read(`{"type":"response.output_audio.delta","delta":"${audio}",}`), /not JSON/);
  });

  it('measures a duplex answer’s audio the same from its bytes as from its text', () => {
    const frame = JSON.stringify({ type: 'response.output_audio.delta', response_id: 'r_1', item_id: 'i_1', delta: audio, server_event_seq: 3 });
    assert.deepEqual(interpretConversationEvent(Buffer.from(frame), 24_000), interpretConversationEvent(frame, 24_000));
  });
});
