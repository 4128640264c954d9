import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { LatencyModel, DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { run } from '../src/run/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { FIXTURES, runNode, testServer, messageText } from './helpers.js';

/** Opens a raw client, sends `frames` after session.created, and collects events until `until` matches. */
async function exchange(url: string, frames: unknown[], until: (e: Record<string, unknown>) => boolean): Promise<Array<Record<string, unknown>>> {
  const ws = new WebSocket(url);
  const events: Array<Record<string, unknown>> = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching event; got ${JSON.stringify(events)}`)), 5000);
    ws.on('error', reject);
    ws.on('message', (raw) => {
      const event = JSON.parse(messageText(raw)) as Record<string, unknown>;
      events.push(event);
      if (event.type === 'session.created') for (const f of frames) ws.send(typeof f === 'string' ? f : JSON.stringify(f));
      if (until(event)) {
        clearTimeout(timer);
        ws.close();
        resolve(events);
      }
    });
  });
}

const isError = (e: Record<string, unknown>) => e.type === 'error';
const silence = (ms: number) => Buffer.alloc(ms * 32).toString('base64');

describe('simulated vLLM server', () => {
  it('opens with session.created carrying a vLLM-shaped id', async () => {
    const server = await testServer();
    const [created] = await exchange(server.url, [], (e) => e.type === 'session.created');
    assert.match(String(created!.id), /^sess-[0-9a-f]{16}$/);
    assert.equal(typeof created!.created, 'number');
  });

  for (const [name, frames, code, message] of [
    [
      'commit before session.update',
      [{ type: 'input_audio_buffer.commit' }],
      'model_not_validated',
      'Model not validated. Make sure to validate the model by sending a session.update event.',
    ],
    ['unknown event', [{ type: 'input_audio_buffer.clear' }], 'unknown_event', 'Unknown event type: input_audio_buffer.clear'],
    ['bad base64 audio', [{ type: 'input_audio_buffer.append', audio: '@@@@' }], 'invalid_audio', 'Invalid audio: expected base64-encoded PCM16'],
    ['empty audio', [{ type: 'input_audio_buffer.append', audio: '' }], 'invalid_audio', 'Invalid audio: empty or odd-length PCM16 chunk'],
    ['invalid JSON', ['{not json'], 'invalid_json', 'Invalid JSON'],
    ['unknown model', [{ type: 'session.update', model: 'x/y' }], 'model_not_found', 'The model `x/y` does not exist.'],
    ['session.update without a model', [{ type: 'session.update' }], 'invalid_event', 'Missing required field: model'],
  ] as const) {
    it(`answers ${name} with a flat error ${code}`, async () => {
      const server = await testServer();
      const events = await exchange(server.url, [...frames], isError);
      assert.deepEqual(events.at(-1), { type: 'error', error: message, code });
    });
  }

  it('transcribes unknown speech-like audio with placeholder words at the pace of its energy', async () => {
    const server = await testServer();
    // 1 s of a 440 Hz tone at -12 dBFS, then 200 ms of silence.
    const pcm = Buffer.alloc(1.2 * 16_000 * 2);
    for (let i = 0; i < 16_000; i++) pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000)), i * 2);
    const events = await exchange(
      server.url,
      [
        { type: 'session.update', model: DEFAULT_MODEL },
        { type: 'input_audio_buffer.commit' },
        { type: 'input_audio_buffer.append', audio: pcm.toString('base64') },
        { type: 'input_audio_buffer.commit', final: true },
      ],
      (e) => e.type === 'transcription.done',
    );
    // 1000 ms voiced: two full 400 ms words, then a 200 ms tail word when the silence starts.
    assert.equal(events.at(-1)!.text, ' speech speech speech');
  });

  it('starts a new utterance on the same socket after transcription.done', async () => {
    const server = await testServer();
    const utterance = [
      { type: 'input_audio_buffer.commit' },
      { type: 'input_audio_buffer.append', audio: silence(200) },
      { type: 'input_audio_buffer.commit', final: true },
    ];
    const ws = new WebSocket(server.url);
    const types: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('error', reject);
      ws.on('message', (raw) => {
        const { type } = JSON.parse(messageText(raw)) as { type: string };
        types.push(type);
        if (type === 'session.created') ws.send(JSON.stringify({ type: 'session.update', model: DEFAULT_MODEL }));
        if (type === 'session.created' || (type === 'transcription.done' && types.length === 2)) {
          for (const frame of utterance) ws.send(JSON.stringify(frame));
        } else if (type === 'transcription.done') resolve();
      });
    });
    ws.close();
    assert.deepEqual(types, ['session.created', 'transcription.done', 'transcription.done']);
  });

  it("completes a session with an independent client written like vLLM's example", async () => {
    const server = await testServer();
    const result = await runNode([join(FIXTURES, 'vllm-example-client.mjs'), join(BUNDLED_SAMPLES_DIR, 'harvard-02.wav'), server.url, DEFAULT_MODEL]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Session created: sess-[0-9a-f]{16}$/m);
    assert.match(result.stdout, /^Final transcription: +Glue the sheet to the dark blue background\.$/m);
  });
});

describe('capacity knee', () => {
  it('answers slower once more sessions are open than its capacity', async () => {
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, capacity: 2 } });
    const ttftP50 = async (concurrency: number) => {
      const { report } = await run({
        target: server.url,
        model: DEFAULT_MODEL,
        profile: { kind: 'concurrent', concurrency },
        maxSessions: concurrency,
        pace: { kind: 'realtime', speed: 4 },
      });
      return report.benchmarks[0]!.summary.metrics.ttft_ms!.p50;
    };
    const below = await ttftP50(2);
    const above = await ttftP50(6); // (6/2)^2 = 9 times slower by the model
    assert.ok(above > 3 * below, `ttft p50 ${below.toFixed(0)} ms at capacity, ${above.toFixed(0)} ms at 3x capacity`);
  });
});

describe('word emission latency', () => {
  it("recovers the server's processing delay word by word", async () => {
    // Every word is emitted exactly 200 ms after the server receives the audio holding its end.
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, baseDelayMs: 200, jitterMs: 0, perWordMs: 0 } });
    const { report } = await run({ target: server.url, model: DEFAULT_MODEL, maxSessions: 2, pace: { kind: 'realtime', speed: 2 } });
    const emission = report.benchmarks[0]!.summary.metrics.word_emission_ms!;
    assert.equal(emission.count, 16, 'every word of two Harvard sentences');
    assert.ok(emission.min >= 200 && emission.p50 < 260, `word emission ${emission.min.toFixed(1)}..${emission.p50.toFixed(1)} ms for a 200 ms server`);
  });
});

describe('latency model', () => {
  it('serves at full speed up to capacity, then slows quadratically', () => {
    const model = new LatencyModel({ ...DEFAULT_LATENCY, capacity: 4, jitterMs: 0 });
    assert.equal(model.slowdown(1), 1);
    assert.equal(model.slowdown(4), 1);
    assert.equal(model.slowdown(8), 4);
    const base = DEFAULT_LATENCY.baseDelayMs + DEFAULT_LATENCY.perWordMs;
    assert.equal(model.delay(2), base);
    assert.equal(model.delay(8), base * 4);
    assert.equal(model.finalize(6), DEFAULT_LATENCY.finalizeMs * 2.25);
  });

  it('draws the same jitter from the same seed', () => {
    const a = new LatencyModel(DEFAULT_LATENCY);
    const b = new LatencyModel(DEFAULT_LATENCY);
    const draws = (m: LatencyModel) => Array.from({ length: 5 }, () => m.delay(1));
    const first = draws(a);
    assert.deepEqual(first, draws(b));
    assert.ok(
      first.some((d) => d !== first[0]),
      'jitter varies',
    );
  });
});
