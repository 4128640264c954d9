import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { DEFAULT_MODELS } from '../src/config/settings.js';
import { DIALECTS, type Protocol } from '../src/dialects/index.js';
import { isSpeechTask } from '../src/timeline/types.js';
import { startProxy, type ProxyOptions, type RunningProxy } from '../src/proxy/proxy.js';
import type { HeldSession } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { DEFAULT_SPEECH_LATENCY } from '../src/server/models/speech-synth.js';
import { sessionView } from '../src/views/session-view.js';
import { messageText, tempDir, testServer, until } from './helpers.js';
import { assertSeenNoLater } from './proxy-checks.js';

/** Fast, exact speech: no jitter, generation ten times faster than real time. */
const FAST = { ...DEFAULT_SPEECH_LATENCY, firstAudioMs: 40, rtf: 0.1, jitterMs: 0, chunkMs: 100 };
const origin = (url: string): string => new URL(url).origin.replace(/^http/, 'ws');

/** A proxy with no --protocol on a free loopback port in front of `upstream`, noting each ended session's dialect; closed when the file ends. */
async function proxyTo(upstream: string, options: Partial<ProxyOptions> = {}): Promise<RunningProxy & { dialects: Protocol[] }> {
  const dialects: Protocol[] = [];
  const proxy = await startProxy({
    listen: { host: '127.0.0.1', port: 0 },
    upstream,
    outputDir: await tempDir(),
    onSession: (_r, protocol) => dialects.push(protocol),
    ...options,
  });
  after(() => proxy.close());
  return Object.assign(proxy, { dialects });
}

/** A benchmark through a fresh proxy (no --protocol), and the same sessions as the proxy observed them. */
async function throughProxy(settings: RunOptions & { protocol: Protocol }, server: { url: string }) {
  const proxy = await proxyTo(origin(server.url));
  const { report } = await run({
    maxSessions: 2,
    // Speech generation given its text whole has no pace.
    ...(isSpeechTask(DIALECTS[settings.protocol]) ? {} : { pace: { kind: 'realtime', speed: 10 } as const }),
    model: DEFAULT_MODELS[settings.protocol],
    ...settings,
    target: `${proxy.url}${settings.target ?? '/'}`,
  });
  await until(() => proxy.open() === 0 && proxy.dialects.length === 2);
  const { report: observed } = await proxy.close();
  const own = report.benchmarks[0]!.sessions;
  assert.deepEqual(
    own.map((s) => s.outcome.status),
    ['completed', 'completed'],
    'the benchmark itself ran',
  );
  return { own, seen: observed!.benchmarks[0]!.sessions, observed: observed!, dialects: proxy.dialects };
}

/** What the proxy must see as the benchmark did: inputs, frames and bytes both ways. */
const shape = (s: HeldSession) => ({
  status: s.outcome.status,
  inputs: s.timeline.inputs.map((i) => (i.kind === 'text' ? i.text.trim() : i.kind)),
  sent: s.timeline.sent.map((f) => f.control ?? f.kind),
  counters: s.timeline.counters,
});
const perInput = (sessions: HeldSession[], metric: string): number[] => sessions.flatMap((s) => s.metrics.inputs.map((i) => i[metric]!));

describe('voxbench proxy: the audio rate a speech client names', () => {
  it("cartesia at 16 kHz: each request's output_format sizes the audio, so durations, RTF and stalls match the benchmark's", async () => {
    const server = await testServer({ speechLatency: FAST });
    const { own, seen, dialects } = await throughProxy({ protocol: 'cartesia', speech: { outputRate: 16_000 } }, server);
    assert.deepEqual(dialects, ['cartesia', 'cartesia'], 'from its path');
    assert.deepEqual(seen.map(shape), own.map(shape));
    const audio = perInput(own, 'audio_out_ms');
    assert.ok(
      audio.every((ms) => ms > 500),
      'real speech',
    );
    // At the 24 kHz a URL-less rate would default to, the same bytes would be two thirds as long.
    assert.deepEqual(
      perInput(seen, 'audio_out_ms').map((ms) => ms.toFixed(3)),
      audio.map((ms) => ms.toFixed(3)),
      'the audio of every input',
    );
    assertSeenNoLater(own, seen, 'ttfa_ms');
    // RTF is that audio over the time it took: the audio is checked exactly above, and the time at the proxy differs
    // from the client's by when each got to read, which the machine's load decides; so here only that it is there.
    perInput(seen, 'gen_rtf').forEach((rtf, k) =>
      assert.ok(rtf > 0 && perInput(own, 'gen_rtf')[k]! > 0, `gen_rtf ${rtf} at the proxy, ${perInput(own, 'gen_rtf')[k]} at the client`),
    );
    assert.deepEqual(perInput(seen, 'stall_count'), perInput(own, 'stall_count'));
  });

  it("vllm-omni-speech-ws: the sample_rate of the client's session.config sizes the binary audio that follows", async () => {
    // A server that speaks one second of PCM16 at the rate the client asked for, in one binary frame.
    const wss = new WebSocketServer({ port: 0 });
    after(() => wss.close());
    wss.on('connection', (ws) => {
      let rate = 24_000;
      ws.on('message', (data) => {
        const message = JSON.parse(messageText(data)) as { type: string; sample_rate?: number };
        if (message.type === 'session.config') rate = message.sample_rate ?? rate;
        if (message.type !== 'input.done') return;
        ws.send(JSON.stringify({ type: 'audio.start' }));
        ws.send(Buffer.alloc(rate * 2), { binary: true });
        ws.send(JSON.stringify({ type: 'session.done' }));
      });
    });
    const proxy = await proxyTo(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`);
    for (const sampleRate of [16_000, 44_100, undefined]) {
      const client = new WebSocket(`${proxy.url}/v1/audio/speech/stream`);
      await new Promise((resolve) => client.once('open', resolve));
      client.send(
        JSON.stringify({ type: 'session.config', model: 'm', response_format: 'pcm', stream_audio: true, ...(sampleRate ? { sample_rate: sampleRate } : {}) }),
      );
      client.send(JSON.stringify({ type: 'input.text', text: 'One second. ' }));
      client.send(JSON.stringify({ type: 'input.done' }));
      await new Promise<void>((resolve) => client.on('message', (data, binary) => !binary && messageText(data).includes('session.done') && resolve()));
      client.close();
      await new Promise((resolve) => client.once('close', resolve));
    }
    await until(() => proxy.dialects.length === 3);
    const { report } = await proxy.close();
    assert.deepEqual(
      perInput(report!.benchmarks[0]!.sessions, 'audio_out_ms'),
      [1000, 1000, 1000],
      'each a second, at the rate its client named (24 kHz when it named none)',
    );
  });
});

describe('voxbench proxy: OpenAI Realtime settled by what the client sends', () => {
  for (const protocol of ['openai-realtime-tts', 'openai-realtime-tts-beta'] as const) {
    it(`${protocol} with no --protocol: metered as speech generation, as the benchmark measured it`, async () => {
      const server = await testServer({ speechLatency: FAST });
      const { own, seen, observed, dialects } = await throughProxy({ protocol }, server);
      assert.deepEqual(dialects, [protocol, protocol]);
      assert.equal(observed.config.protocol, protocol);
      assert.equal(observed.config.task, 'tts');
      assert.equal(observed.config.model, DEFAULT_MODELS[protocol]);
      assert.deepEqual(seen.map(shape), own.map(shape), 'the same inputs, frames and bytes, those sent before the dialect was told included');
      assert.deepEqual(perInput(seen, 'audio_out_ms'), perInput(own, 'audio_out_ms'));
      assertSeenNoLater(own, seen, 'ttfa_ms');
      // The server's greeting came before the client said what it wanted: replayed, it made the session ready.
      for (const { timeline } of seen) {
        assert.equal(timeline.received[0]!.kind, 'ready');
        assert.equal(timeline.transport.kind === 'websocket' && timeline.transport.readyMs, timeline.received[0]!.t);
      }
    });
  }

  it('transcription (a ?model= URL, no intent) and conversations keep their own dialects', async () => {
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, generationRtf: 0.1 } });
    const stt = await throughProxy({ protocol: 'openai', target: '/v1/realtime?model=gpt-4o-transcribe', model: 'gpt-4o-transcribe' }, server);
    assert.deepEqual([stt.dialects, stt.observed.config.task], [['openai', 'openai'], 'stt']);
    assert.deepEqual(stt.seen.map(shape), stt.own.map(shape));
    assertSeenNoLater(stt.own, stt.seen, 'ttft_ms');
    const s2s = await throughProxy({ protocol: 'openai-realtime', target: '/v1/realtime' }, server);
    assert.deepEqual([s2s.dialects, s2s.observed.config.task], [['openai-realtime', 'openai-realtime'], 's2s']);
    assert.deepEqual(s2s.seen.map(shape), s2s.own.map(shape));
  });

  it("a connection that never says what it is for is still metered, with the upgrade's guess, and holds a bounded amount", async () => {
    const server = await testServer();
    const proxy = await proxyTo(origin(server.url));
    // Closes before configuring anything.
    const quiet = new WebSocket(`${proxy.url}/v1/realtime?model=gpt-realtime`);
    await new Promise((resolve) => quiet.once('message', resolve));
    quiet.close();
    await until(() => proxy.dialects.length === 1);
    // Streams audio without a configuration: settled on the guess once 64 frames are held, counted open from then.
    const chatty = new WebSocket(`${proxy.url}/v1/realtime?model=gpt-realtime`);
    await new Promise((resolve) => chatty.once('open', resolve));
    const append = JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(480).toString('base64') });
    for (let i = 0; i < 70; i++) chatty.send(append);
    await until(() => proxy.open() === 1);
    chatty.close();
    await until(() => proxy.dialects.length === 2 && proxy.open() === 0);
    const { report } = await proxy.close();
    const sessions = report!.benchmarks[0]!.sessions;
    assert.deepEqual(proxy.dialects, ['openai', 'openai']);
    assert.deepEqual(
      sessions.map((s) => s.timeline.counters.framesSent),
      [0, 70],
      'every frame, those held included',
    );
    assert.equal(sessions[1]!.timeline.sent.filter((f) => f.kind === 'audio').length, 70);
  });
});

describe('voxbench proxy: streaming transcription told by its path', () => {
  it('elevenlabs-scribe: /v1/speech-to-text/realtime is metered as the benchmark measured it', async () => {
    const server = await testServer();
    const { own, seen, observed, dialects } = await throughProxy({ protocol: 'elevenlabs-scribe' }, server);
    assert.deepEqual(dialects, ['elevenlabs-scribe', 'elevenlabs-scribe'], 'from its path');
    assert.equal(observed.config.model, DEFAULT_MODELS['elevenlabs-scribe'], 'from model_id in the URL');
    assert.deepEqual(seen.map(shape), own.map(shape), 'its base64 chunks as audio, its commits as ends of input');
    const finals = (sessions: HeldSession[]) => sessions.map((s) => s.timeline.received.filter((e) => e.kind === 'text_final').map((e) => e.text));
    assert.deepEqual(finals(seen), finals(own), 'the same committed transcripts');
    assertSeenNoLater(own, seen, 'ttft_ms');
    assertSeenNoLater(own, seen, 'commit_to_flush_ms');
  });

  it('elevenlabs-scribe with commit_strategy=vad in its URL: metered as server turn detection, each VAD commit a final', async () => {
    const server = await testServer();
    const turnDetection = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } as const;
    const { own, seen } = await throughProxy({ protocol: 'elevenlabs-scribe', turnDetection, padding: { trailMs: 700 } }, server);
    assert.deepEqual(
      seen.map((s) => s.timeline.turnDetection),
      ['server', 'server'],
    );
    // The client's closing flush may race the VAD's commit (Scribe announces no VAD event): then the
    // server answers it with an empty committed transcript after the VAD's, which the proxy relays and
    // counts while the client, its session settled by the VAD's, may no longer read it. The rest is equal.
    const unreadTail = (s: HeldSession) => ({ ...shape(s), counters: { ...s.timeline.counters, framesReceived: 0, bytesReceived: 0 } });
    assert.deepEqual(seen.map(unreadTail), own.map(unreadTail));
    seen.forEach((s, i) => assert.ok(s.timeline.counters.framesReceived >= own[i]!.timeline.counters.framesReceived, 'every frame the client read'));
    // The turn's finals, as every figure reads them: that empty answer is none of them, whoever won the race.
    const finals = (sessions: HeldSession[]) => sessions.map((s) => sessionView(s.timeline).inputs.flatMap((i) => i.transcript.finals.map((f) => f.text)));
    assert.deepEqual(finals(seen), finals(own));
    assert.ok(
      finals(own).every((texts) => texts.length === 1 && texts[0]),
      `one committed transcript per session: ${JSON.stringify(finals(own))}`,
    );
    // Metered as client turns, each would be a final no commit asked for.
    assert.deepEqual(
      seen.map((s) => s.metrics.session.protocol_anomalies),
      [0, 0],
    );
  });
});
