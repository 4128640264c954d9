import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDialect, loadDialects } from '../src/dialects/index.js';
import type { WebSocketDialect } from '../src/dialects/dialect.js';

await loadDialects();

const SPEECH = { model: 'm', responseFormat: 'pcm', streamFormat: 'audio', outputRate: 24_000 } as const;
const dialect = (protocol: 'vllm' | 'openai' | 'openai-beta', type: 'none' | 'server_vad' = 'none'): WebSocketDialect =>
  createDialect(protocol, {
    model: 'm',
    speech: SPEECH,
    turnDetection: type === 'none' ? { type } : { type, threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 },
  }) as WebSocketDialect;
const read = (d: WebSocketDialect, frame: string | Buffer, binary = false) => d.readSent!(Buffer.from(frame), binary);

describe("dialects read the client's frames (for the proxy)", () => {
  it('reads every frame the benchmark itself sends as what it sent', () => {
    for (const protocol of ['vllm', 'openai', 'openai-beta'] as const) {
      for (const td of ['none', 'server_vad'] as const) {
        if (protocol === 'vllm' && td === 'server_vad') continue;
        const d = dialect(protocol, td);
        for (const bytes of [3200, 3199, 3198, 0])
          assert.deepEqual(read(d, d.audioFrame(Buffer.alloc(bytes, 7), { startMs: 0, endMs: 100 })), { kind: 'audio', pcmBytes: bytes });
        const config = read(d, d.sessionFrames()[0]!);
        const task = protocol === 'vllm' ? {} : { task: 'stt' }; // OpenAI's says what the session is for
        assert.deepEqual(
          config,
          { kind: 'control', control: 'session_config', model: 'm', turnDetection: td === 'none' ? 'client' : 'server', ...task },
          `${protocol} ${td}`,
        );
        assert.deepEqual(read(d, d.inputEndFrame()), { kind: 'control', control: 'input_end' });
        const start = d.inputStartFrame();
        if (start) assert.deepEqual(read(d, start), { kind: 'control', control: 'input_start' });
      }
    }
  });

  it("reads the speech-to-speech dialects' frames, their acknowledgements and closing event included", () => {
    for (const protocol of ['vllm-omni-duplex', 'openai-realtime'] as const) {
      const d = createDialect(protocol, { model: 'm', speech: SPEECH, turnDetection: { type: 'none' } }) as WebSocketDialect;
      assert.deepEqual(read(d, d.audioFrame(Buffer.alloc(3200, 7), { startMs: 0, endMs: 100 })), { kind: 'audio', pcmBytes: 3200 }, protocol);
      assert.deepEqual(read(d, d.sessionFrames()[0]!), { kind: 'control', control: 'session_config', turnDetection: 'client' }, protocol);
      assert.deepEqual(read(d, d.inputEndFrame()), { kind: 'control', control: 'input_end' }, protocol);
      const closing = d.reactions?.({ speed: 1 }).closing(0) ?? [];
      for (const { frame, control } of closing) assert.deepEqual(read(d, frame), { kind: 'control', control }, protocol);
    }
    const duplex = createDialect('vllm-omni-duplex', { model: 'm', speech: SPEECH, turnDetection: { type: 'none' } }) as WebSocketDialect;
    const [ack] = duplex.reactions!({ speed: 1 }).received({ t: 0, input: 0, type: 'response.created', kind: 'response_started', serverSeq: 3 });
    assert.deepEqual(read(duplex, ack!.frame), { kind: 'control', control: 'event_ack' });
  });

  it('reads frames other clients lay out otherwise, and never throws', () => {
    const d = dialect('openai');
    const audio = Buffer.alloc(4800, 1).toString('base64');
    assert.deepEqual(read(d, JSON.stringify({ event_id: 'evt_1', type: 'input_audio_buffer.append', audio })), { kind: 'audio', pcmBytes: 4800 });
    assert.deepEqual(read(d, JSON.stringify({ audio, type: 'input_audio_buffer.append' })), { kind: 'audio', pcmBytes: 4800 });
    assert.deepEqual(read(d, '{"type":"response.create"}'), { kind: 'control', control: 'response_request' });
    assert.deepEqual(read(d, '{"type":"input_audio_buffer.clear"}'), { kind: 'other', type: 'input_audio_buffer.clear' });
    assert.deepEqual(read(d, 'not json'), { kind: 'other', type: '(invalid)' });
    assert.deepEqual(read(d, Buffer.from([1, 2, 3]), true), { kind: 'other', type: '(binary)' });
    assert.deepEqual(read(dialect('vllm'), '{"type":"input_audio_buffer.commit","final":true}'), { kind: 'control', control: 'input_end' });
  });

  it("reads the speech-generation dialects' frames as the benchmark records them: text pieces, the send that forces synthesis, the configuration", () => {
    for (const protocol of ['vllm-omni-speech-ws', 'openai-realtime-tts', 'openai-realtime-tts-beta', 'elevenlabs', 'deepgram-aura', 'cartesia'] as const) {
      const d = createDialect(protocol, { model: 'm', speech: SPEECH, turnDetection: { type: 'none' } }) as WebSocketDialect;
      // Cartesia names its model and rate in every request, OpenAI Realtime (GA) its rate in its configuration.
      const request = protocol === 'cartesia' ? { model: 'm', outputRate: 24_000 } : {};
      assert.deepEqual(read(d, d.textFrame!('Hello there, ')), { kind: 'text', text: 'Hello there, ', ...request }, protocol);
      assert.deepEqual(read(d, d.inputEndFrame()), { kind: 'control', control: 'input_end', ...request }, protocol);
      // vLLM-Omni's and OpenAI Realtime's configurations also name the format and voice asked for (a replay's shape keeps them).
      const configured =
        protocol === 'vllm-omni-speech-ws'
          ? { model: 'm', format: 'pcm' }
          : protocol === 'openai-realtime-tts'
            ? { outputRate: 24_000, format: 'audio/pcm', voice: 'marin' }
            : protocol === 'openai-realtime-tts-beta'
              ? { format: 'pcm16', voice: 'marin' }
              : {};
      for (const frame of d.sessionFrames()) assert.deepEqual(read(d, frame), { kind: 'control', control: 'session_config', ...configured }, protocol);
      assert.deepEqual(read(d, Buffer.from([1, 2]), true), { kind: 'other', type: '(binary)' }, protocol);
      assert.deepEqual(read(d, '[1, 2'), { kind: 'other', type: '(invalid)' }, protocol);
    }
  });

  it("reads what other speech clients send: Cartesia's one-shot request and ElevenLabs' flush force synthesis with their own text", () => {
    const d = (protocol: 'elevenlabs' | 'cartesia' | 'deepgram-aura') =>
      createDialect(protocol, { model: 'm', speech: SPEECH, turnDetection: { type: 'none' } }) as WebSocketDialect;
    assert.deepEqual(read(d('cartesia'), JSON.stringify({ model_id: 'sonic-2', transcript: 'Hi.', context_id: 'c' })), {
      kind: 'text',
      text: 'Hi.',
      ends: true,
      model: 'sonic-2',
    });
    assert.deepEqual(read(d('cartesia'), JSON.stringify({ context_id: 'c', cancel: true })), { kind: 'control', control: 'cancel' });
    const format = (encoding: string, sample_rate: unknown) =>
      JSON.stringify({ transcript: 'Hi ', continue: true, output_format: { container: 'raw', encoding, sample_rate } });
    assert.deepEqual(read(d('cartesia'), format('pcm_s16le', 16_000)), { kind: 'text', text: 'Hi ', outputRate: 16_000 }, 'the rate of 16-bit PCM');
    for (const [encoding, rate] of [
      ['pcm_f32le', 44_100],
      ['pcm_s16le', 7],
      ['pcm_s16le', '16000'],
    ] as const)
      assert.deepEqual(read(d('cartesia'), format(encoding, rate)), { kind: 'text', text: 'Hi ' }, `${encoding} ${rate}: no PCM16 rate`);
    assert.deepEqual(read(d('elevenlabs'), JSON.stringify({ text: 'Now. ', flush: true })), { kind: 'text', text: 'Now. ', ends: true });
    assert.deepEqual(read(d('elevenlabs'), JSON.stringify({ text: 'x', voice_settings: {} })), { kind: 'text', text: 'x' });
    assert.deepEqual(read(d('deepgram-aura'), '{"type":"Clear"}'), { kind: 'control', control: 'cancel' });
    assert.deepEqual(read(d('deepgram-aura'), '{"type":"Close"}'), { kind: 'other', type: 'Close' });
  });
});
