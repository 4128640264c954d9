import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { createDialect, loadDialects } from '../src/dialects/index.js';
import { interpretLivepeerEvent } from '../src/dialects/livepeer/client.js';
import type { WebSocketDialect } from '../src/dialects/dialect.js';
import { startProxy } from '../src/proxy/proxy.js';
import type { HeldSession } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import type { WebSocketTransport } from '../src/timeline/types.js';
import { messageText, tempDir, testServer } from './helpers.js';

await loadDialects();

const MODEL = 'mistralai/Voxtral-Mini-4B-Realtime-2602';
const FAST = { ...DEFAULT_LATENCY, baseDelayMs: 20, jitterMs: 0, perWordMs: 2, finalizeMs: 20 };
const dialect = createDialect('livepeer', {
  model: MODEL,
  turnDetection: { type: 'none' },
  speech: { model: '', responseFormat: 'pcm', streamFormat: 'audio', outputRate: 24_000 },
}) as WebSocketDialect;
const channel = dialect.audioChannel!;

/** The app's closing event as stats.py shapes it (live-runner-example-apps vllm-realtime). */
const STATS = {
  type: 'stats',
  transcription: { audio_seconds: 6.56, wall_seconds: 7.35, realtime_factor: 1.12, time_to_first_word_s: 2.39, finalize_tail_s: 0.38, deltas: 21, words: 21 },
  websocket: { elapsed_s: 7.9, events_sent: 38, deltas_sent: 21, bytes_sent: 4100, send_failures: 0, commands_received: 1, send_rate_hz: 4.8 },
  trickle: {
    elapsed_s: 7.6,
    get_attempts: 15,
    get_retries: 0,
    get_404_eos: 1,
    get_470_reset: 0,
    get_failures: 0,
    segments_delivered: 14,
    seq_gap_events: 0,
    wait_ms_total: 120,
  },
};

const channelOf = (s: HeldSession) => (s.timeline.transport as WebSocketTransport).channel!;
const figure = (s: HeldSession, name: string) => s.metrics.inputs[0]?.[name];

async function runLivepeer(target: string, options: Partial<RunOptions> = {}) {
  const { report } = await run({ target, protocol: 'livepeer', model: MODEL, maxSessions: 1, pace: { kind: 'none' }, ...options });
  return report.benchmarks[0]!.sessions;
}

describe('livepeer: the codec against the app’s documented messages', () => {
  it('reads delta, done, progress, stats and error events', () => {
    assert.deepEqual(interpretLivepeerEvent('{"type":"delta","delta":" hello","transcript":" hello","word_count":1,"sentiment":"neu"}'), {
      type: 'delta',
      kind: 'text_delta',
      channel: 'input_transcript',
      text: ' hello',
    });
    assert.deepEqual(interpretLivepeerEvent('{"type":"done","delta":"","transcript":" hello world","word_count":2,"sentiment":"pos"}'), {
      type: 'done',
      kind: 'text_final',
      channel: 'input_transcript',
      text: ' hello world',
    });
    assert.deepEqual(interpretLivepeerEvent('{"type":"progress","audio_bytes":16000}'), { type: 'progress', kind: 'progress', audioEndMs: 500 });
    const stats = interpretLivepeerEvent(JSON.stringify(STATS));
    assert.equal(stats.kind, 'other');
    assert.equal(stats.usage?.source, 'stats');
    assert.equal(stats.usage?.values['transcription.finalize_tail_s'], 0.38, "the app's own figures, under their wire names");
    assert.equal(stats.usage?.values['trickle.segments_delivered'], 14);
    assert.equal(stats.usage?.values['websocket.events_sent'], undefined, 'the transcription and Trickle meters are kept, not the socket counters');
    assert.deepEqual(interpretLivepeerEvent('{"type":"error","message":"vLLM unreachable","code":"upstream"}'), {
      type: 'error',
      kind: 'error',
      message: 'vLLM unreachable',
      code: 'upstream',
    });
    assert.throws(() => interpretLivepeerEvent('{"type":'), /not JSON/);
  });

  it('opens the session, publishes segments and ends the audio as the example client does', () => {
    const open = channel.open('http://orch:8935/apps/r1/session/s1/app/');
    assert.equal(open.url, 'http://orch:8935/apps/r1/session/s1/app/transcribe', "under the orchestrator's app_url");
    assert.equal(open.method, 'POST');
    const opened = channel.opened('https://orch/apps/r1/session/s1/app', Buffer.from('{"session":"abc","in":"https://orch/ai/trickle/abc-in","ws":"/ws"}'));
    assert.deepEqual(opened, { socketUrl: 'wss://orch/apps/r1/session/s1/app/ws', publishUrl: 'https://orch/ai/trickle/abc-in', session: 'abc' });
    assert.throws(() => channel.opened('http://app', Buffer.from('{"session":"abc"}')), /names no Trickle URL/);
    assert.deepEqual(channel.segment(opened.publishUrl), {
      method: 'POST',
      url: 'https://orch/ai/trickle/abc-in/-1',
      headers: { 'content-type': 'audio/raw' },
    });
    assert.deepEqual(channel.end(opened.publishUrl), { method: 'DELETE', url: 'https://orch/ai/trickle/abc-in', headers: {} });
    assert.deepEqual(channel.segmentAnswer(200, { 'lp-trickle-seq': '3' }), { seq: 3 });
    assert.match(
      (channel.segmentAnswer(470, { 'lp-trickle-seq': '3', 'lp-trickle-latest': '7' }) as { lost: string }).lost,
      /segment 3 \(HTTP 470; latest 7\)/,
    );
    assert.ok('refused' in channel.segmentAnswer(404, {}));
    assert.equal(channel.segmentMs, 500);
  });

  it('reads the client’s session.update for the proxy', () => {
    const reading = dialect.readSent!(Buffer.from(JSON.stringify({ type: 'session.update', session: { model: MODEL, language: 'en' } })), false);
    assert.deepEqual(reading, { kind: 'control', control: 'session_config', turnDetection: 'client', model: MODEL });
  });
});

describe('livepeer: against the built-in server', () => {
  it('an unpaced run loses no segment: every one acknowledged before the next, transcripts exact, the stats kept beside the figures', async () => {
    const server = await testServer({ latency: FAST });
    const sessions = await runLivepeer(server.origin, { maxSessions: 2, chunkMs: 40 });
    for (const s of sessions) {
      assert.deepEqual(s.outcome, { status: 'completed' });
      const { segments } = channelOf(s);
      assert.ok(segments.length >= 4, `segments: ${segments.length}`);
      segments.forEach((segment, k) => {
        assert.equal(segment.lost, undefined);
        assert.equal(segment.seq, k);
        assert.ok(segment.ackMs! >= segment.endMs!, 'acknowledged after its body ended');
        if (k > 0) assert.ok(segment.startMs >= segments[k - 1]!.ackMs!, 'one segment in flight: the next starts after the last is acknowledged');
        if (k < segments.length - 1) assert.ok(segment.bytes >= 16_000 && segment.bytes < 16_000 + 1280, `0.5 s of 40 ms pieces: ${segment.bytes}`);
      });
      const end = s.timeline.sent.find((f) => f.control === 'input_end')!;
      assert.equal(end.t, channelOf(s).endMs, "the input's end is the channel's DELETE");
      assert.ok(end.t >= segments.at(-1)!.ackMs!, 'sent once the last segment was acknowledged');
      assert.equal(figure(s, 'wer'), 0);
      for (const name of ['ttft_ms', 'finalization_ms', 'commit_to_flush_ms']) assert.ok(figure(s, name)! > 0, name);
      const stats = s.timeline.received.find((e) => e.type === 'stats')!;
      assert.equal(stats.usage?.values['trickle.segments_delivered'], segments.length, "the app's count pairs with the client's");
      assert.equal(stats.usage?.values['transcription.audio_seconds'], segments.reduce((n, x) => n + x.bytes, 0) / 32_000);
    }
  });

  it('a paced run publishes in time and completes', async () => {
    const server = await testServer({ latency: FAST });
    const [session] = await runLivepeer(server.origin, { pace: { kind: 'realtime', speed: 8 } });
    assert.deepEqual(session!.outcome, { status: 'completed' });
    assert.equal(figure(session!, 'wer'), 0);
  });

  it('a Trickle reader that drops a segment: the loss is counted and fails the session as audio_lost', async () => {
    const server = await testServer({ latency: FAST, faults: [[{ name: 'drop-segment', segment: 2 }]] });
    const [session] = await runLivepeer(server.origin, { timeouts: { finalMs: 800 } });
    assert.equal(session!.outcome.status, 'failed');
    const failure = (session!.outcome as { failure: { class: string; message: string } }).failure;
    assert.equal(failure.class, 'audio_lost');
    assert.match(failure.message, /segment 2 \(seq 1\) was lost: never acknowledged within 800 ms/);
    const { segments } = channelOf(session!);
    assert.deepEqual(
      segments.map((s) => [s.status, s.ackMs !== undefined, s.lost !== undefined]),
      [
        [200, true, false],
        [200, false, true],
      ],
      'the server took the segment (200) and never read it: only the missing acknowledgement tells',
    );
  });

  it('an app that acknowledges nothing: no_backpressure, never a segment it read called lost; its channel is ended', async () => {
    const server = await testServer({ latency: FAST, faults: [[{ name: 'no-progress' }]] });
    const [session] = await runLivepeer(server.origin, { timeouts: { finalMs: 800 } });
    const failure = failureOf(session!);
    assert.equal(failure.class, 'no_backpressure');
    assert.equal(failure.message.split('\n').length, 1);
    assert.match(
      failure.message,
      /^the server acknowledged no audio \(no progress event within 800 ms of segment 1's end, though it sent \d+ transcript deltas?, so it reads the audio\): the client publishes a segment only once the last is acknowledged, so it stopped after 500 ms of audio$/,
    );
    assert.ok(
      session!.timeline.received.some((e) => e.kind === 'text_delta' && e.text),
      "the app's delta for the segment is in the timeline",
    );
    const record = channelOf(session!);
    assert.ok(
      record.segments.every((s) => s.lost === undefined),
      'no segment is said to be lost',
    );
    assert.ok(record.closedMs !== undefined && record.endMs === undefined, 'the failed session ended its channel all the same');
  });

  it('across worker threads too: two sessions on two threads handed one session, one is failed as shared_session', async () => {
    const server = await testServer({ latency: FAST, faults: [[{ name: 'shared-session' }]] });
    // Real time keeps the first session's channel open while the other thread, which may start
    // a second later on a loaded machine, opens its own: unpaced, the first could be done by then.
    const sessions = await runLivepeer(server.origin, {
      maxSessions: 2,
      workers: 2,
      profile: { kind: 'concurrent', concurrency: 2 },
      pace: { kind: 'realtime', speed: 1 },
    });
    const outcomes = sessions.map((s) => (s.outcome.status === 'failed' ? failureOf(s).class : s.outcome.status)).sort();
    assert.deepEqual(outcomes, ['completed', 'shared_session']);
  });

  it('an app that hands one session to two at once: the later fails as shared_session, the first completes alone', async () => {
    const server = await testServer({ latency: FAST, faults: [[{ name: 'shared-session' }]] });
    const sessions = await runLivepeer(server.origin, { maxSessions: 2, profile: { kind: 'concurrent', concurrency: 2 } });
    const outcomes = sessions.map((s) => (s.outcome.status === 'failed' ? failureOf(s).class : s.outcome.status)).sort();
    assert.deepEqual(outcomes, ['completed', 'shared_session']);
    const shared = sessions.find((s) => s.outcome.status === 'failed')!;
    assert.equal(failureOf(shared).stage, 'connect');
    assert.match(failureOf(shared).message, /^the server handed this session the session [0-9a-f]+, which another session of the run is still using/);
    assert.equal(channelOf(shared).segments.length, 0, 'it published nothing into the shared channel');
    assert.equal(
      figure(
        sessions.find((s) => s.outcome.status === 'completed')!,
        'wer',
      ),
      0,
      'the first is scored on its own audio alone',
    );
  });
});

interface Script {
  /** The answer to `/transcribe`, when not the session. */
  refuse?: { status: number; body: string };
  /** The status for segment `k` (from 0) instead of reading it. */
  segmentStatus?: (k: number) => number | undefined;
  /** What the app does once segment `k` is read; default: acknowledge it. */
  read?: (k: number, ws: WebSocket, ack: () => void) => void;
  /** The body `/transcribe` answers with, when not the usual. */
  opened?: string;
  /** Where the app writes down each request it takes (`POST /transcribe`, `DELETE /ai/trickle/s1-in`, …). */
  log?: string[];
}

/** A scripted app after the example's documented messages: `/transcribe`, a Trickle publish route, `/ws`; closed when the file ends. */
async function scriptedApp(script: Script = {}): Promise<string> {
  let ws: WebSocket | undefined;
  let bytes = 0;
  let k = 0;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    script.log?.push(`${req.method} ${path}`);
    if (path === '/transcribe') {
      if (script.refuse) return void res.writeHead(script.refuse.status).end(script.refuse.body);
      const { port } = http.address() as AddressInfo;
      return void res.end(script.opened ?? JSON.stringify({ session: 's1', in: `http://127.0.0.1:${port}/ai/trickle/s1-in`, ws: '/ws' }));
    }
    if (req.method === 'DELETE') {
      res.end();
      ws?.send(JSON.stringify({ type: 'delta', delta: ' hello', transcript: ' hello', word_count: 1, sentiment: 'neu' }));
      ws?.send(JSON.stringify({ type: 'done', delta: '', transcript: ' hello', word_count: 1, sentiment: 'neu' }));
      ws?.send(JSON.stringify(STATS));
      return void ws?.close(1000);
    }
    const segment = k++;
    const status = script.segmentStatus?.(segment);
    if (status !== undefined) return void res.writeHead(status, { 'lp-trickle-seq': String(segment), 'lp-trickle-latest': String(segment + 4) }).end();
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      res.writeHead(200, { 'lp-trickle-seq': String(segment) }).end();
      const ack = () => ws?.send(JSON.stringify({ type: 'progress', audio_bytes: bytes }));
      if (script.read) script.read(segment, ws!, ack);
      else ack();
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (client) => (ws = client)));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  after(() => {
    for (const client of wss.clients) client.terminate();
    http.closeAllConnections();
    http.close();
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

const failureOf = (s: HeldSession) =>
  (s.outcome as { failure: { class: string; stage: string; httpStatus?: number; closeCode?: number; message: string } }).failure;

describe('livepeer: a scripted app', () => {
  it('speaking the documented events: completed, the stats kept', async () => {
    const [session] = await runLivepeer(await scriptedApp());
    assert.deepEqual(session!.outcome, { status: 'completed' });
    assert.equal(session!.timeline.received.at(-1)!.usage?.values['transcription.realtime_factor'], 1.12);
  });

  it('refusing the session (a 402 as an unpaid orchestrator answers): http_status at connect', async () => {
    const [session] = await runLivepeer(await scriptedApp({ refuse: { status: 402, body: '{"payment_params":{}}' } }));
    assert.deepEqual(
      { class: failureOf(session!).class, stage: failureOf(session!).stage, httpStatus: failureOf(session!).httpStatus },
      { class: 'http_status', stage: 'connect', httpStatus: 402 },
    );
  });

  it('an answer that names no channel: protocol_violation', async () => {
    const [session] = await runLivepeer(await scriptedApp({ opened: '{"session":"s1"}' }));
    assert.equal(failureOf(session!).class, 'protocol_violation');
  });

  it('a segment answered 470 (gone): audio_lost at once', async () => {
    const [session] = await runLivepeer(await scriptedApp({ segmentStatus: (k) => (k === 1 ? 470 : undefined) }), { timeouts: { finalMs: 10_000 } });
    assert.equal(failureOf(session!).class, 'audio_lost');
    assert.match(failureOf(session!).message, /no longer holds segment 1 \(HTTP 470; latest 5\)/);
  });

  it('an app that holds one session: after a session that failed, the next starts on an ended channel, not an inherited one', async () => {
    // The app answers every /transcribe with the same session (as the example app does); the first session's audio is never acknowledged.
    const log: string[] = [];
    let first: WebSocket | undefined;
    const url = await scriptedApp({ log, read: (_k, ws, ack) => ((first ??= ws) === ws ? undefined : ack()) });
    const sessions = await runLivepeer(url, { maxSessions: 2, timeouts: { finalMs: 500 } });
    assert.deepEqual(
      sessions.map((s) => (s.outcome.status === 'failed' ? failureOf(s).class : s.outcome.status)),
      ['no_backpressure', 'completed'],
    );
    const opens = log.flatMap((line, i) => (line === 'POST /transcribe' ? [i] : []));
    const ends = log.flatMap((line, i) => (line === 'DELETE /ai/trickle/s1-in' ? [i] : []));
    assert.equal(ends.length, 2, log.join(', '));
    assert.ok(ends[0]! < opens[1]!, 'the failed session ended its channel before the next opened');
  });

  it('an error event: server_error', async () => {
    const url = await scriptedApp({ read: (k, ws, ack) => (k === 1 ? ws.send('{"type":"error","message":"transcriber failed","code":"upstream"}') : ack()) });
    const [session] = await runLivepeer(url);
    assert.deepEqual([failureOf(session!).class, failureOf(session!).message], ['server_error', 'server error upstream: transcriber failed']);
  });

  it('the socket closed mid-stream: abnormal_close with its code', async () => {
    const [session] = await runLivepeer(await scriptedApp({ read: (k, ws, ack) => (k === 1 ? ws.close(1011, 'runner died') : ack()) }));
    assert.deepEqual([failureOf(session!).class, failureOf(session!).closeCode], ['abnormal_close', 1011]);
  });

  it('a malformed event: protocol_violation', async () => {
    const [session] = await runLivepeer(await scriptedApp({ read: (k, ws, ack) => (k === 1 ? ws.send('{"type":') : ack()) }));
    assert.equal(failureOf(session!).class, 'protocol_violation');
  });
});

describe('livepeer: voxbench proxy', () => {
  it('meters the app’s WebSocket by its path: transcripts, acknowledgements and stats; the Trickle audio is not on it', async () => {
    const server = await testServer({ latency: FAST });
    const protocols: string[] = [];
    const proxy = await startProxy({
      listen: { host: '127.0.0.1', port: 0 },
      upstream: server.origin.replace(/^http/, 'ws'),
      outputDir: await tempDir(),
      onSession: (_record, protocol) => protocols.push(protocol),
    });
    after(() => proxy.close());
    // The example client's flow by hand: the session and the audio straight to the app, the socket through the proxy.
    const opened = (await (await fetch(`${server.origin}/transcribe`, { method: 'POST', body: '{}' })).json()) as { in: string; ws: string };
    const ws = new WebSocket(`${proxy.url}${opened.ws}`);
    const events: Array<Record<string, unknown>> = [];
    let acked = 0;
    ws.on('message', (data) => {
      const event = JSON.parse(messageText(data)) as Record<string, unknown>;
      events.push(event);
      if (event.type === 'progress') acked = event.audio_bytes as number;
    });
    await new Promise((resolve) => ws.once('open', resolve));
    const audio = Buffer.alloc(16_000 * 3, 1); // three segments of a quiet tone
    for (let published = 0; published < audio.length; published += 16_000) {
      await fetch(`${opened.in}/-1`, { method: 'POST', body: audio.subarray(published, published + 16_000) });
      while (acked < published + 16_000) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await fetch(opened.in, { method: 'DELETE' });
    await new Promise((resolve) => ws.once('close', resolve));
    while (proxy.open() > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const { report } = await proxy.close();
    const [seen] = report!.benchmarks[0]!.sessions;
    assert.deepEqual(protocols, ['livepeer'], 'told by its path');
    assert.deepEqual(seen!.outcome, { status: 'completed' });
    assert.deepEqual(
      seen!.timeline.received.filter((e) => e.kind === 'progress').map((e) => e.audioEndMs),
      [500, 1000, 1500],
    );
    assert.equal(seen!.timeline.received.at(-1)!.type, 'stats');
    assert.equal(seen!.timeline.sent.length, 0, 'no audio on the socket');
    assert.equal(events.at(-1)!.type, 'stats');
  });
});
