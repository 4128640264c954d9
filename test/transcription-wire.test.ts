import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeAudio } from '../src/audio/decode.js';
import { encodeFlac } from '../src/audio/flac-encode.js';
import { resolveSettings, UsageError } from '../src/config/settings.js';
import { ProtocolViolation, type DecodedEvent } from '../src/dialects/dialect.js';
import { multipartBody } from '../src/dialects/multipart.js';
import { transcriptionBodyDecoder, type BodyKind } from '../src/dialects/transcription-body.js';
import { transcriptionsDialect } from '../src/dialects/transcriptions/client.js';
import { MultipartError, parseMultipart } from '../src/server/multipart.js';

/** Decodes `body` delivered in pieces of `size` bytes, as a server may cut it anywhere. */
function decode(kind: BodyKind, body: string, size = 7): DecodedEvent[] {
  const decoder = transcriptionBodyDecoder(kind);
  const bytes = Buffer.from(body);
  const events: DecodedEvent[] = [];
  for (let at = 0; at < bytes.length; at += size) events.push(...decoder.chunk(bytes.subarray(at, at + size)));
  return [...events, ...decoder.end()];
}
const sse = (...data: string[]): string => data.map((d) => `data: ${d}\n\n`).join('');
const brief = (events: DecodedEvent[]) => events.map((e) => [e.kind, e.type, e.text ?? null]);

describe('transcription response bodies', () => {
  it("vLLM's transcription.chunk stream: final at [DONE] with the deltas joined, one finish per window ignored", () => {
    const chunk = (content: string, finish?: string) =>
      JSON.stringify({ id: 'trsc-1', object: 'transcription.chunk', choices: [{ delta: { content }, ...(finish ? { finish_reason: finish } : {}) }] });
    const events = decode(
      'sse',
      sse(
        chunk(''),
        chunk('Hello', 'stop'),
        chunk(' world', 'stop'),
        JSON.stringify({ object: 'transcription.chunk', choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } }),
        '[DONE]',
      ),
    );
    assert.deepEqual(brief(events), [
      ['text_delta', 'transcription.chunk', ''],
      ['text_delta', 'transcription.chunk', 'Hello'],
      ['text_delta', 'transcription.chunk', ' world'],
      ['other', 'transcription.chunk', null],
      ['text_final', '[DONE]', 'Hello world'],
    ]);
    assert.deepEqual(events[3]!.usage, { source: 'transcription.chunk', values: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } });
  });

  it("OpenAI's transcript.text stream: final at done with its usage; a later [DONE] is recorded, not a second final", () => {
    const events = decode(
      'sse',
      sse(
        JSON.stringify({ type: 'transcript.text.delta', delta: 'Hi' }),
        JSON.stringify({
          type: 'transcript.text.done',
          text: 'Hi there',
          usage: { type: 'tokens', input_tokens: 5, output_tokens: 2, total_tokens: 7, input_token_details: { audio_tokens: 5 } },
        }),
        '[DONE]',
      ).replaceAll('\n', '\r\n'),
      3,
    );
    assert.deepEqual(brief(events), [
      ['text_delta', 'transcript.text.delta', 'Hi'],
      ['text_final', 'transcript.text.done', 'Hi there'],
      ['other', '[DONE]', null],
    ]);
    assert.deepEqual(events[1]!.usage, {
      source: 'transcript.text.done',
      values: { input_tokens: 5, output_tokens: 2, total_tokens: 7, 'input_token_details.audio_tokens': 5 },
    });
  });

  it('a stream that ends before [DONE] has no final (the runner calls it cut)', () => {
    const events = decode('sse', sse(JSON.stringify({ object: 'transcription.chunk', choices: [{ delta: { content: 'Hel' } }] })));
    assert.ok(!events.some((e) => e.kind === 'text_final'));
  });

  it('errors in a stream or a body, in each shape servers send', () => {
    for (const error of [
      { error: { message: 'too long', type: 'BadRequestError', code: 400 } },
      { object: 'error', message: 'too long', code: 400 },
      { type: 'error', error: { message: 'too long', code: 'bad_audio' } },
    ]) {
      const [event] = decode('sse', sse(JSON.stringify(error)));
      assert.equal(event!.kind, 'error');
      assert.equal(event!.message, 'too long');
      assert.ok(event!.code === '400' || event!.code === 'bad_audio');
    }
    assert.equal(decode('json', JSON.stringify({ error: { message: 'no', code: 'x' } }))[0]!.kind, 'error');
  });

  it('JSON, verbose JSON and text bodies give one final at the end', () => {
    assert.deepEqual(brief(decode('json', JSON.stringify({ text: ' Hello world', usage: { type: 'duration', seconds: 3 } }))), [
      ['text_final', 'transcription', 'Hello world'],
    ]);
    const verbose = decode(
      'json',
      JSON.stringify({ task: 'transcribe', duration: 3, text: 'a b', segments: [{ id: 0, start: 0, end: 3, text: 'a b' }], usage: { seconds: 3 } }),
    );
    assert.deepEqual(verbose[0]!.usage, { source: 'transcription', values: { seconds: 3 } });
    assert.deepEqual(brief(decode('text', 'Hello world\n')), [['text_final', 'text', 'Hello world']]);
  });

  it('a body or event that is not JSON, or JSON without text, is a protocol violation', () => {
    assert.throws(
      () => decode('json', '{"text": "cut'),
      (err) => err instanceof ProtocolViolation && /not JSON/.test(err.message),
    );
    assert.throws(() => decode('json', '[1]'), ProtocolViolation);
    assert.throws(() => decode('json', '{"txt": "a"}'), /no string "text"/);
    assert.throws(() => decode('sse', 'data: {"object": "transcription.ch\n\n'), /not JSON/);
  });
});

describe('the multipart form', () => {
  it('the client builds a form the server parses back, the file byte for byte', () => {
    const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 37) % 256));
    const { body, contentType } = multipartBody(
      [
        ['model', 'whisper'],
        ['prompt', 'a "quoted"\r\nline'],
      ],
      { name: 'file', fileName: 'a"b.wav', contentType: 'audio/wav', data },
    );
    const form = parseMultipart(body, contentType);
    assert.equal(form.fields.get('model'), 'whisper');
    assert.equal(form.fields.get('prompt'), 'a "quoted"\r\nline');
    const file = form.files.get('file')!;
    assert.deepEqual([file.fileName, file.contentType], ['a_b.wav', 'audio/wav']);
    assert.ok(file.data.equals(data));
  });

  it('the parser refuses what it cannot read, saying why', () => {
    const { body, contentType } = multipartBody([], { name: 'file', fileName: 'a.wav', contentType: 'audio/wav', data: Buffer.from('x') });
    assert.throws(() => parseMultipart(body, 'application/json'), MultipartError);
    assert.throws(() => parseMultipart(body.subarray(0, body.length - 20), contentType), /no closing boundary/);
    const many = multipartBody(
      Array.from({ length: 70 }, (_, i) => [`f${i}`, 'v'] as const),
      { name: 'file', fileName: 'a', contentType: 'x', data: Buffer.alloc(1) },
    );
    assert.throws(() => parseMultipart(many.body, many.contentType), /more than 64 parts/);
  });

  it('the dialects send the form fields the endpoints take', () => {
    const form = (name: 'vllm-transcriptions' | 'openai-transcriptions', stream: boolean, translate = false) => {
      const dialect = transcriptionsDialect(name, { model: 'm', prompt: 'p', transcription: { responseFormat: 'json', stream, translate, temperature: 0.2 } });
      const request = dialect.request({ kind: 'audio', file: Buffer.from('RIFF'), fileName: 's.wav', contentType: 'audio/wav', language: 'en-US' });
      return { path: request.path, fields: Object.fromEntries(parseMultipart(request.body, request.headers['content-type']!).fields) };
    };
    assert.deepEqual(form('vllm-transcriptions', true), {
      path: '/v1/audio/transcriptions',
      fields: { model: 'm', language: 'en', prompt: 'p', response_format: 'json', temperature: '0.2', stream: 'true', stream_include_usage: 'true' },
    });
    assert.deepEqual(form('openai-transcriptions', false).fields, { model: 'm', language: 'en', prompt: 'p', response_format: 'json', temperature: '0.2' });
    const translation = form('openai-transcriptions', false, true);
    assert.equal(translation.path, '/v1/audio/translations');
    assert.equal(translation.fields.language, undefined, "OpenAI's translations take no language");
  });
});

describe('the FLAC upload encoder', () => {
  it('round-trips 16-bit audio exactly through a FLAC decoder, over several blocks and a short last one', async () => {
    const samples = Float32Array.from({ length: 4096 * 3 + 5 }, (_, i) => Math.round(Math.sin(i / 7) * 12_000 + ((i * 7919) % 601) - 300) / 32768);
    const flac = encodeFlac(samples, 16_000);
    assert.equal(flac.subarray(0, 4).toString('latin1'), 'fLaC');
    const decoded = await decodeAudio(flac, 'test.flac');
    assert.equal(decoded.sampleRate, 16_000);
    assert.deepEqual(
      Array.from(decoded.samples, (s) => Math.round(s * 32768)),
      Array.from(samples, (s) => Math.round(s * 32768)),
    );
    const odd = await decodeAudio(encodeFlac(samples.subarray(0, 1000), 11_025), 'odd-rate.flac');
    assert.equal(odd.sampleRate, 11_025, 'a rate without a header code is written in Hz');
  });

  it('writes stereo as two independent channels that a FLAC decoder reads back exactly', async () => {
    const left = Float32Array.from({ length: 4096 + 77 }, (_, i) => Math.round(Math.sin(i / 5) * 9_000) / 32768);
    const right = Float32Array.from(left, (_, i) => (((i * 7919) % 2001) - 1000) / 32768);
    const { decoder } = await import('@audio/decode-flac');
    const flac = await decoder();
    const { channelData, sampleRate } = flac.decode(encodeFlac([left, right], 48_000));
    flac.free();
    assert.equal(sampleRate, 48_000);
    // The decoder scales 16-bit integers by 1/32767.
    assert.deepEqual(
      channelData.map((c) => Array.from(c, (s) => Math.round(s * 32767) + 0)),
      [left, right].map((c) => Array.from(c, (s) => Math.round(s * 32768) + 0)),
    );
  });
});

describe('batch settings', () => {
  const refused = (options: Parameters<typeof resolveSettings>[0], pattern: RegExp) =>
    assert.throws(
      () => resolveSettings(options),
      (err) => err instanceof UsageError && pattern.test(err.message),
    );

  it('refuse what cannot work, naming the option', () => {
    refused(
      { protocol: 'vllm-transcriptions', transcription: { stream: true, responseFormat: 'text' } },
      /^transcription\.responseFormat text .* transcription\.stream /,
    );
    refused(
      { protocol: 'openai-transcriptions', transcription: { stream: true, responseFormat: 'verbose_json' } },
      /leave transcription\.responseFormat at json, or diarized_json for speakers/,
    );
    refused({ protocol: 'vllm', transcription: { stream: true } }, /^transcription\.stream is for the batch transcription dialects/);
    refused({ protocol: 'openai', transcription: { uploadFormat: 'flac' } }, /^transcription\.uploadFormat is for the batch transcription dialects/);
    refused({ protocol: 'vllm-transcriptions', target: 'ws://localhost:8000/v1/realtime', model: 'm' }, /http:\/\/ or https:\/\//);
    refused({ protocol: 'openai-transcriptions', turnDetection: { type: 'semantic_vad', eagerness: 'auto' } }, /sends each input in one request/);
    refused({ protocol: 'vllm-transcriptions', transcription: { temperature: -1 } }, /^transcription\.temperature must be zero or more/);
  });

  it('default the model per dialect and keep the upload format', () => {
    assert.equal(resolveSettings({ protocol: 'vllm-transcriptions' }).model, 'openai/whisper-large-v3');
    assert.equal(resolveSettings({ protocol: 'openai-transcriptions' }).model, 'gpt-4o-transcribe');
    assert.equal(resolveSettings({ protocol: 'vllm-transcriptions', transcription: { uploadFormat: 'wav' } }).uploadFormat, 'wav');
    const diarized = resolveSettings({ protocol: 'openai-transcriptions', transcription: { stream: true, responseFormat: 'diarized_json' } });
    assert.equal(diarized.dialect.transcription?.responseFormat, 'diarized_json', 'speaker segments come streamed too');
    assert.equal(resolveSettings({ protocol: 'vllm-transcriptions', target: 'https://example.com', model: 'm' }).protocol, 'vllm-transcriptions');
  });
});
