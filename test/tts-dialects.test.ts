import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolViolation } from '../src/dialects/dialect.js';
import { cartesiaDialect, interpretCartesiaEvent } from '../src/dialects/cartesia/client.js';
import { deepgramAuraDialect, interpretAuraEvent } from '../src/dialects/deepgram-aura/client.js';
import { elevenlabsDialect, interpretElevenLabsMessage } from '../src/dialects/elevenlabs/client.js';
import { interpretRealtimeTtsEvent, openaiRealtimeTtsDialect } from '../src/dialects/openai-realtime-tts/client.js';
import { base64Bytes, speechPolicy } from '../src/dialects/tts-common.js';
import { vllmOmniSpeechWsDialect } from '../src/dialects/vllm-omni-speech-ws/client.js';
import { pcm16WavHeader } from '../src/audio/wav-header.js';

const b64 = (bytes: number): string => Buffer.alloc(bytes, 7).toString('base64');

describe('speech-generation dialects decode the wire', () => {
  it('sizes base64 audio from its length alone', () => {
    for (const n of [0, 1, 2, 3, 4, 4800, 4801, 4802]) assert.equal(base64Bytes(b64(n)), n);
  });

  it('vllm-omni-speech-ws: binary PCM is audio, a WAV header is not, audio.start is an announcement', () => {
    const dialect = vllmOmniSpeechWsDialect({ model: 'm' });
    assert.deepEqual(
      dialect.decode(Buffer.alloc(4800), true).map((e) => [e.kind, e.audioBytes, e.audioMs]),
      [['audio', 4800, 100]],
    );
    const wav = Buffer.concat([pcm16WavHeader(24_000, 9600), Buffer.alloc(9600)]);
    assert.deepEqual(
      dialect.decode(wav, true).map((e) => [e.kind, e.audioBytes, e.audioMs]),
      [['audio', 9600, 200]],
    );
    assert.equal(dialect.decode(pcm16WavHeader(24_000), true)[0]!.kind, 'other', 'a header alone is no audio');
    const text = (event: object) => dialect.decode(Buffer.from(JSON.stringify(event)), false)[0]!;
    assert.equal(text({ type: 'audio.start', utterance_index: 0, sentence_index: 0 }).kind, 'response_started');
    assert.deepEqual(text({ type: 'audio.chunk', audio_b64: b64(960), sample_rate: 48_000 }), {
      type: 'audio.chunk',
      kind: 'audio',
      audioBytes: 960,
      audioMs: 10,
      payload: b64(960),
    });
    assert.equal(text({ type: 'audio.chunk', audio_b64: '', timestamps: [] }).kind, 'other');
    assert.equal(text({ type: 'session.done', total_sentences: 1 }).kind, 'response_done');
    assert.deepEqual(text({ type: 'error', message: 'boom', partial_audio: true, action: 'discard' }), {
      type: 'error',
      kind: 'error',
      message: 'boom',
      code: 'partial_audio',
    });
    assert.equal(text({ type: 'audio.done', error: true }).kind, 'error');
    assert.throws(() => dialect.decode(Buffer.from('not json'), false), ProtocolViolation);
    assert.equal(dialect.connectUrl('ws://h:1'), 'ws://h:1/v1/audio/speech/stream');
    assert.equal(dialect.connectUrl('ws://h:1/custom'), 'ws://h:1/custom');
  });

  it('elevenlabs: audio and the end in either spelling, several in one message, its error shape', () => {
    assert.deepEqual(
      interpretElevenLabsMessage(JSON.stringify({ audio: b64(480), isFinal: false })).map((e) => [e.kind, e.audioMs]),
      [['audio', 10]],
    );
    assert.deepEqual(
      interpretElevenLabsMessage('{"isFinal":true}').map((e) => e.kind),
      ['response_done'],
    );
    assert.deepEqual(
      interpretElevenLabsMessage('{"is_final":true,"audio":null}').map((e) => e.kind),
      ['response_done'],
    );
    assert.deepEqual(
      interpretElevenLabsMessage(JSON.stringify({ audio: b64(48), is_final: true })).map((e) => e.kind),
      ['audio', 'response_done'],
    );
    assert.deepEqual(
      interpretElevenLabsMessage('{"audio":"","isFinal":false}').map((e) => e.kind),
      ['other'],
    );
    assert.deepEqual(interpretElevenLabsMessage('{"message":"idle","error":"input_timeout_exceeded","code":1008}'), [
      { type: 'error', kind: 'error', message: 'idle', code: 'input_timeout_exceeded' },
    ]);
    assert.throws(() => interpretElevenLabsMessage('[1]'), ProtocolViolation);
    const dialect = elevenlabsDialect({ model: 'eleven_flash_v2_5', voice: 'v 1' });
    assert.equal(
      dialect.connectUrl('wss://api.elevenlabs.io'),
      'wss://api.elevenlabs.io/v1/text-to-speech/v%201/stream-input?model_id=eleven_flash_v2_5&output_format=pcm_24000',
    );
    assert.deepEqual([dialect.textFrame!('Hello'), dialect.textFrame!('world ')], ['{"text":"Hello "}', '{"text":"world "}']);
    assert.deepEqual([dialect.sessionFrames(), dialect.inputEndFrame()], [['{"text":" "}'], '{"text":""}']);
  });

  it('openai-realtime-tts: GA and beta audio names, empty deltas, failed responses, nested errors', () => {
    for (const type of ['response.output_audio.delta', 'response.audio.delta']) {
      assert.deepEqual(interpretRealtimeTtsEvent(JSON.stringify({ type, response_id: 'r', delta: b64(4800) })), {
        type,
        kind: 'audio',
        audioBytes: 4800,
        audioMs: 100,
        payload: b64(4800),
        responseId: 'r',
      });
      assert.equal(interpretRealtimeTtsEvent(JSON.stringify({ type, response_id: 'r', delta: '' })).kind, 'other');
    }
    assert.deepEqual(interpretRealtimeTtsEvent(JSON.stringify({ type: 'response.audio_transcript.delta', response_id: 'r', delta: 'Hi' })), {
      type: 'response.audio_transcript.delta',
      kind: 'text_delta',
      channel: 'response_transcript',
      text: 'Hi',
      responseId: 'r',
    });
    assert.deepEqual(interpretRealtimeTtsEvent(JSON.stringify({ type: 'response.done', response: { id: 'r', status: 'completed' } })), {
      type: 'response.done',
      kind: 'response_done',
      responseId: 'r',
    });
    const usage = { input_tokens: 12, output_tokens: 40, input_token_details: { text_tokens: 12 } };
    assert.deepEqual(interpretRealtimeTtsEvent(JSON.stringify({ type: 'response.done', response: { id: 'r', status: 'completed', usage } })).usage, {
      source: 'response.done',
      values: { input_tokens: 12, output_tokens: 40, 'input_token_details.text_tokens': 12 },
    });
    const failed = interpretRealtimeTtsEvent(
      JSON.stringify({ type: 'response.done', response: { id: 'r', status: 'incomplete', status_details: { reason: 'max_output_tokens' } } }),
    );
    assert.deepEqual([failed.kind, failed.code, failed.message], ['error', 'response_incomplete', 'the response ended incomplete (max_output_tokens)']);
    assert.deepEqual(interpretRealtimeTtsEvent('{"type":"error","error":{"type":"invalid_request_error","code":"bad","message":"no"}}'), {
      type: 'error',
      kind: 'error',
      message: 'no',
      code: 'bad',
    });
    const beta = openaiRealtimeTtsDialect({ model: 'gpt-realtime', beta: true });
    assert.deepEqual(beta.upgradeHeaders(), { 'OpenAI-Beta': 'realtime=v1' });
    assert.equal(beta.connectUrl('wss://api.openai.com'), 'wss://api.openai.com/v1/realtime?model=gpt-realtime');
    assert.match(beta.sessionFrames()[0]!, /"output_audio_format":"pcm16"/);
    assert.match(openaiRealtimeTtsDialect({ model: 'm', beta: false }).sessionFrames()[0]!, /"type":"realtime".*"rate":24000/);
  });

  it('deepgram-aura: Metadata makes the session ready, Flushed ends an input, a Warning is not fatal', () => {
    assert.deepEqual(
      ['Metadata', 'Flushed', 'Warning', 'Error'].map((type) => interpretAuraEvent(JSON.stringify({ type, description: 'd', code: 'C' })).kind),
      ['ready', 'response_done', 'other', 'error'],
    );
    const dialect = deepgramAuraDialect({ model: 'aura-2-thalia-en' });
    assert.deepEqual(
      dialect.decode(Buffer.alloc(480), true).map((e) => [e.kind, e.audioMs]),
      [['audio', 10]],
    );
    assert.equal(
      dialect.connectUrl('wss://api.deepgram.com'),
      'wss://api.deepgram.com/v1/speak?model=aura-2-thalia-en&encoding=linear16&sample_rate=24000&container=none',
    );
    assert.deepEqual([dialect.textFrame!('Hi'), dialect.inputEndFrame()], ['{"type":"Speak","text":"Hi"}', '{"type":"Flush"}']);
  });

  it('cartesia: every piece a whole request on one context, the end an empty transcript; chunk, done and error', () => {
    const dialect = cartesiaDialect({ model: 'sonic-3', voice: 'v' });
    assert.deepEqual(JSON.parse(dialect.textFrame!('Hi ')), {
      context_id: 'voxbench',
      model_id: 'sonic-3',
      transcript: 'Hi ',
      voice: { mode: 'id', id: 'v' },
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24_000 },
      continue: true,
      max_buffer_delay_ms: 0,
    });
    assert.equal((JSON.parse(dialect.inputEndFrame()) as { continue: boolean }).continue, false);
    assert.deepEqual(dialect.upgradeHeaders(), { 'Cartesia-Version': '2025-04-16' });
    assert.deepEqual(interpretCartesiaEvent(JSON.stringify({ type: 'chunk', data: b64(480), done: false })), {
      type: 'chunk',
      kind: 'audio',
      audioBytes: 480,
      audioMs: 10,
      payload: b64(480),
    });
    assert.equal(interpretCartesiaEvent('{"type":"chunk","data":"","done":false}').kind, 'other');
    assert.equal(interpretCartesiaEvent('{"type":"done","done":true}').kind, 'response_done');
    assert.equal(interpretCartesiaEvent('{"type":"flush_done","flush_done":true}').kind, 'other');
    assert.deepEqual(interpretCartesiaEvent('{"type":"error","status_code":400,"title":"Bad Request","message":"no","error_code":"bad_voice"}'), {
      type: 'error',
      kind: 'error',
      message: 'no',
      code: 'bad_voice',
    });
  });

  it('the speech policy: an end of response answers only an end of input already sent', () => {
    const policy = speechPolicy(true);
    const at = (kind: 'response_done' | 'error', t: number) => policy.observe({ t, type: kind, kind, input: 0 });
    assert.equal(policy.ready, true);
    at('response_done', 1);
    assert.equal(policy.inputDone(0), false, 'a done before any end of input answers nothing');
    policy.controlSent({ t: 2, input: 0, bytes: 1, kind: 'control', control: 'input_end' });
    at('response_done', 3);
    assert.equal(policy.inputDone(0), true);
    assert.equal(policy.inputDone(1), false);
    assert.deepEqual(at('error', 4), { end: { class: 'server_error', message: 'server error:' } });
  });
});
