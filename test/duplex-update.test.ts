import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import { DEFAULT_MODELS } from '../src/config/settings.js';
import { startProxy } from '../src/proxy/proxy.js';
import type { HeldSession } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import type { AudioInput } from '../src/timeline/types.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { messageText, tempDir, testServer } from './helpers.js';

const VAD = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } as const;
/** Answers generated at 10 times real time, audio streamed at 8 (a session takes about 2 s). */
const QUICK = { latency: { ...DEFAULT_LATENCY, generationRtf: 0.1 } };
const origin = (url: string): string => new URL(url).origin.replace(/^http/, 'ws');
const startsOf = (s: HeldSession) => s.timeline.received.filter((e) => e.kind === 'speech_started').map((e) => e.audioStartMs!);

/**
 * A real server's `session.update` does not restart its input audio clock: `audio_start_ms`
 * counts "from the start of all audio written to the input audio buffer during the
 * session" (OpenAI's InputAudioBufferSpeechStartedEvent). A simulated server that
 * restarted it (and its VAD) on an update reported the second turn at the first's
 * position, so the proxy cut the stream into the wrong turns; an update during speech
 * opened a second item that was never answered, and the session timed out after 30 s.
 */
describe('a mid-stream session.update with server turn detection keeps the input audio clock', () => {
  // The first utterance is speech from 165 to 2370 ms of the stream, the second from 5270 ms.
  for (const [protocol, model, updateAtMs, when] of [
    ['openai-realtime', 'gpt-realtime', 3600, 'between utterances'],
    ['openai-realtime', 'gpt-realtime', 1000, 'during speech'],
    ['vllm-omni-duplex', 'openbmb/MiniCPM-o-4_5', 1000, 'during speech'],
    ['openai', DEFAULT_MODELS.openai, 3600, 'between utterances'],
  ] as const) {
    it(`${protocol}, ${when}: speech positions keep counting, each turn is answered, and the proxy meters the turns as the client sent them`, async () => {
      const server = await testServer(QUICK);
      const dialects: string[] = [];
      let metered!: () => void;
      const ended = new Promise<void>((resolve) => (metered = resolve));
      const proxy = await startProxy({
        listen: { host: '127.0.0.1', port: 0 },
        upstream: origin(server.url),
        outputDir: await tempDir(),
        onSession: (_r, p) => {
          dialects.push(p);
          metered();
        },
      });
      after(() => proxy.close());
      const { report } = await run({
        target: `${proxy.url}/v1/realtime`,
        protocol,
        model,
        maxSessions: 1,
        turnsPerSession: 2,
        turnDetection: VAD,
        padding: { gapMs: 1600, trailMs: 700 },
        updateAtMs,
        pace: { kind: 'realtime', speed: 8 },
      });
      const own = report.benchmarks[0]!.sessions[0]!;
      assert.deepEqual(own.outcome, { status: 'completed' });
      assert.equal(own.timeline.sent.filter((f) => f.control === 'session_update').length, 1, 'the update was sent mid-stream');
      const starts = startsOf(own);
      assert.equal(starts.length, 2, `one speech start per utterance: ${starts.join(', ')}`);
      assert.ok(starts[1]! > starts[0]! + 2000, `the second utterance starts after the first on the session's clock: ${starts.join(', ')} ms`);

      await ended;
      const { report: observed } = await proxy.close();
      const seen = observed!.benchmarks[0]!.sessions[0]!;
      assert.deepEqual(seen.outcome, { status: 'completed' });
      assert.deepEqual(dialects, [protocol]);
      assert.equal(seen.timeline.inputs.length, 2, 'the proxy meters the two turns');
      assert.deepEqual(startsOf(seen), starts);
      const [spoken, answered] = own.timeline.inputs as AudioInput[];
      const [first, second] = seen.timeline.inputs as AudioInput[];
      assert.ok(
        second!.audioStartMs >= spoken!.speechEndMs && second!.audioStartMs <= answered!.speechStartMs,
        `the second turn starts at ${second!.audioStartMs} ms`,
      );
      assert.ok(
        Math.abs(second!.audioEndMs - answered!.audioEndMs) < 1,
        `the proxy metered ${second!.audioEndMs} ms of audio, the client sent ${answered!.audioEndMs}`,
      );
      for (const frame of seen.timeline.sent.filter((f) => f.kind === 'audio'))
        assert.equal(frame.input, frame.audioStartMs! < first!.audioEndMs ? 0 : 1, `audio at ${frame.audioStartMs} ms`);
    });
  }
});

describe('a conversation whose server leaves a speech start open', () => {
  it('a later speech start, at a position gone back, ends it: the turn is answered at once, not after the 30 s final timeout, and the proxy meters it', async () => {
    // A server whose VAD restarts mid-speech: speech starts at 0 ms, starts again at 0 ms with
    // another item (the first never stops), and that second item is committed and answered.
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    after(() => wss.close());
    await new Promise((resolve) => wss.once('listening', resolve));
    wss.on('connection', (ws) => {
      const send = (event: Record<string, unknown>) => ws.send(JSON.stringify(event));
      send({ type: 'session.created', session: { id: 'sess_1', type: 'realtime' } });
      let appends = 0;
      ws.on('message', (data) => {
        const { type } = JSON.parse(messageText(data)) as { type: string };
        if (type === 'session.update') send({ type: 'session.updated', session: { id: 'sess_1', type: 'realtime' } });
        if (type !== 'input_audio_buffer.append') return;
        appends++;
        if (appends === 1) send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 0, item_id: 'item_a' });
        if (appends !== 5) return;
        send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 0, item_id: 'item_b' });
        send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: 300, item_id: 'item_b' });
        send({ type: 'input_audio_buffer.committed', item_id: 'item_b', previous_item_id: null });
        send({ type: 'response.created', response: { id: 'resp_1', object: 'realtime.response', status: 'in_progress', output: [] } });
        send({ type: 'response.done', response: { id: 'resp_1', object: 'realtime.response', status: 'completed', output: [] } });
      });
    });
    let metered!: () => void;
    const ended = new Promise<void>((resolve) => (metered = resolve));
    const upstream = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
    const proxy = await startProxy({ listen: { host: '127.0.0.1', port: 0 }, upstream, outputDir: await tempDir(), onSession: () => metered() });
    after(() => proxy.close());
    const { report } = await run({
      target: `${proxy.url}/v1/realtime`,
      protocol: 'openai-realtime',
      model: 'gpt-realtime',
      maxSessions: 1,
      turnDetection: VAD,
      pace: { kind: 'realtime', speed: 8 },
    });
    const own = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(own.outcome, { status: 'completed' });
    await ended;
    const { report: observed } = await proxy.close();
    const seen = observed!.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(seen.outcome, { status: 'completed' });
    assert.deepEqual(startsOf(seen), [0, 0]);
  });
});
