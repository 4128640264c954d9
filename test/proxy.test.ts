import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import WebSocket, { WebSocketServer } from 'ws';
import { toPcm16 } from '../src/audio/pcm.js';
import { resample } from '../src/audio/resample.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadFolderDataset } from '../src/data/load.js';
import { summarize } from '../src/metrics/stats.js';
import { startProxy, type ProxyOptions, type RunningProxy } from '../src/proxy/proxy.js';
import { readReport } from '../src/report/recompute.js';
import type { Report, ReportSession } from '../src/report/schema.js';
import { run } from '../src/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { tempDir, testServer } from './helpers.js';
import { parsePrometheusText, type Family } from './prometheus-text.js';

const { samples } = await loadFolderDataset(BUNDLED_SAMPLES_DIR);

/** A proxy on a free loopback port in front of `upstream`; closed when the file ends. */
async function proxyTo(upstream: string, options: Partial<ProxyOptions> = {}): Promise<RunningProxy> {
  const proxy = await startProxy({ listen: { host: '127.0.0.1', port: 0 }, upstream, ...options });
  after(() => proxy.close());
  return proxy;
}

const median = (xs: number[]): number => summarize(xs)!.p50;
const origin = (url: string): string => new URL(url).origin.replace(/^http/, 'ws');
const finals = (s: ReportSession): string[] => s.timeline.received.filter((e) => e.kind === 'text_final').map((e) => e.text ?? '');
const values = (report: Report, metric: string): number[] =>
  report.benchmarks[0]!.sessions.flatMap((s) => s.metrics.inputs.flatMap((i) => (i[metric] === undefined ? [] : [i[metric]!])));

async function scrape(proxy: RunningProxy): Promise<Map<string, Family>> {
  const response = await fetch(`${proxy.metrics!.url}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}
/** The samples of family `name`, each as its labels (named ones) and value. */
const samplesOf = (families: Map<string, Family>, name: string, sample = name, labels: string[] = []): Array<[...string[], number]> => {
  const found = families.get(name);
  assert.ok(found, `${name} is exported`);
  return found.samples.filter((s) => s.name === sample).map((s) => [...labels.map((l) => s.labels[l] ?? ''), s.value] as [...string[], number]);
};

describe('voxbench proxy', () => {
  it("voxbench's own benchmark runs through it unchanged, and the proxy's figures match the benchmark's on the same sessions", async () => {
    const server = await testServer();
    const dir = await tempDir();
    const proxy = await proxyTo(origin(server.url), { outputDir: dir, outputs: ['json', 'html'], metrics: { host: '127.0.0.1', port: 0 } });
    const settings = { model: DEFAULT_MODEL, turnsPerSession: 2, maxSessions: 3, profile: { kind: 'concurrent', concurrency: 3 }, eos: 'audio_end', pace: { kind: 'realtime', speed: 4 } } as const;
    const direct = (await run({ target: server.url, ...settings })).report;
    const through = (await run({ target: `${proxy.url}/v1/realtime`, ...settings })).report;
    await until(() => proxy.open() === 0); // the last closing handshake may still be passing through
    const { report: observed } = await proxy.close();
    assert.ok(observed);

    const sessions = through.benchmarks[0]!.sessions;
    assert.ok(sessions.every((s) => s.outcome.status === 'completed'));
    assert.deepEqual(sessions.map(finals), direct.benchmarks[0]!.sessions.map(finals), 'identical transcripts through the proxy');
    const seen = observed.benchmarks[0]!.sessions;
    assert.equal(seen.length, 3);
    assert.deepEqual(
      seen.map((s) => finals(s)).sort(),
      sessions.map(finals).sort(),
      'the proxy saw the same transcripts',
    );
    assert.deepEqual(seen.map((s) => [s.outcome.status, s.timeline.inputs.length]), [['completed', 2], ['completed', 2], ['completed', 2]]);
    assert.deepEqual(seen.map((s) => s.timeline.counters.framesSent).sort(), sessions.map((s) => s.timeline.counters.framesSent).sort());
    for (const metric of ['ttft_ms', 'commit_to_flush_ms', 'finalization_ms', 'audio_ms']) {
      const own = values(through, metric);
      const proxied = values(observed, metric);
      assert.equal(proxied.length, own.length, `${metric}: a value per turn`);
      assert.ok(Math.abs(median(proxied)! - median(own)!) < 1, `${metric}: median ${median(proxied)} at the proxy, ${median(own)} at the client`);
    }
    assert.ok(observed.observed?.position.includes('between the clients and the server'));
    // The folder is a report like a run's.
    const read = await readReport(dir);
    assert.equal(read.benchmarks[0]!.sessions.length, 3);
    assert.equal(read.config.model, DEFAULT_MODEL);
  });

  it("the openai SDK's realtime client works through it, its authorization forwarded, with the transcript it gets directly", async () => {
    const server = await testServer({ apiKey: 'sk-proxy-test' });
    const proxy = await proxyTo(origin(server.url), { metrics: { host: '127.0.0.1', port: 0 } });
    const pcm = toPcm16((await resample(samples[1]!.audio, 24_000)).samples);
    const sdkTranscript = (port: number): Promise<string> => {
      const client = new OpenAI({ apiKey: 'sk-proxy-test', baseURL: `http://127.0.0.1:${port}/v1` });
      const rt = new OpenAIRealtimeWS({ intent: 'transcription', options: { createConnection: (o) => connect(o as { port: number; host: string }) } }, client);
      return new Promise((resolve, reject) => {
        rt.on('error', reject);
        rt.socket.on('open', () => {
          rt.send({ type: 'session.update', session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 24_000 }, transcription: { model: 'gpt-4o-transcribe' }, turn_detection: null } } } });
          for (let i = 0; i < pcm.length; i += 4800) rt.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(i, i + 4800).toString('base64') });
          rt.send({ type: 'input_audio_buffer.commit' });
        });
        rt.on('conversation.item.input_audio_transcription.completed', (event) => {
          rt.close();
          resolve(event.transcript);
        });
      });
    };
    const direct = await sdkTranscript(server.port);
    const proxied = await sdkTranscript(proxy.url ? Number(new URL(proxy.url).port) : 0);
    assert.equal(direct, samples[1]!.text);
    assert.equal(proxied, direct);
    await until(() => proxy.open() === 0);
    const families = await scrape(proxy);
    assert.deepEqual(samplesOf(families, 'voxbench_sessions_total', undefined, ['protocol', 'model', 'outcome']), [['openai', 'gpt-4o-transcribe', 'completed', 1]]);
    assert.deepEqual(samplesOf(families, 'voxbench_sessions_open', undefined, ['protocol']), [['openai', 0]]);
    const ttft = samplesOf(families, 'voxbench_latency_seconds', 'voxbench_latency_seconds_count', ['metric']).filter(([m]) => m === 'ttft');
    assert.deepEqual(ttft, [['ttft', 1]]);
    assert.deepEqual(samplesOf(families, 'voxbench_connections_closed_total', undefined, ['close_code', 'closed_by']), [['1000', 'client', 1]]);
    assert.deepEqual(samplesOf(families, 'voxbench_frames_total', undefined, ['direction']).map(([d, n]) => [d, (n as number) > 2]), [['sent', true], ['received', true]]);
    assert.equal((await fetch(`${proxy.metrics!.url}/healthz`)).status, 200);
  });

  it('passes path, query, headers, subprotocol, text and binary frames, pings and close codes both ways', async () => {
    const wss = new WebSocketServer({ port: 0, handleProtocols: (offered) => [...offered].at(-1) ?? false, autoPong: false });
    after(() => wss.close());
    const seen: { url?: string; headers?: Record<string, string | string[] | undefined>; frames: Array<[string, boolean]>; pings: string[]; close?: [number, string] } = { frames: [], pings: [] };
    wss.on('connection', (ws, request) => {
      seen.url = request.url;
      seen.headers = request.headers;
      ws.on('message', (data, isBinary) => {
        seen.frames.push([isBinary ? (data as Buffer).toString('hex') : String(data), isBinary]);
        ws.send(data, { binary: isBinary });
        if (String(data) === 'bye') ws.close(4001, 'server says bye');
      });
      ws.on('ping', (data) => {
        seen.pings.push(String(data));
        ws.pong(data);
      });
      ws.on('close', (code, reason) => (seen.close = [code, String(reason)]));
    });
    const proxy = await proxyTo(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`);
    const connectClient = () => new WebSocket(`${proxy.url}/some/path?x=1&api_key=k`, ['first', 'second'], { headers: { authorization: 'Bearer secret', 'x-trace': 'abc' } });

    const client = connectClient();
    await new Promise((resolve) => client.once('open', resolve));
    assert.equal(client.protocol, 'second');
    const echoes: Array<[string, boolean]> = [];
    client.on('message', (data, isBinary) => echoes.push([isBinary ? (data as Buffer).toString('hex') : String(data), isBinary]));
    const pong = new Promise<string>((resolve) => client.once('pong', (d) => resolve(String(d))));
    client.ping('are you there');
    client.send('{"type":"hello"}');
    client.send(Buffer.from([0, 1, 2, 255]));
    assert.equal(await pong, 'are you there');
    client.send('bye');
    const [code, reason] = await new Promise<[number, string]>((resolve) => client.once('close', (c, r) => resolve([c, String(r)])));
    assert.deepEqual([code, reason], [4001, 'server says bye']);
    assert.equal(seen.url, '/some/path?x=1&api_key=k');
    assert.equal(seen.headers!.authorization, 'Bearer secret');
    assert.equal(seen.headers!['x-trace'], 'abc');
    assert.deepEqual(seen.pings, ['are you there']);
    const sent: Array<[string, boolean]> = [['{"type":"hello"}', false], ['000102ff', true], ['bye', false]];
    assert.deepEqual(seen.frames, sent);
    assert.deepEqual(echoes, sent);

    // The client closing: its code and reason reach the server.
    const second = connectClient();
    await new Promise((resolve) => second.once('open', resolve));
    second.close(4002, 'client says bye');
    await until(() => seen.close?.[0] === 4002);
    assert.deepEqual(seen.close, [4002, 'client says bye']);
  });

  it('gives the client the status, headers and body of a refused upgrade, 502 when the server is down, and counts them', async () => {
    const server = await testServer({ apiKey: 'right' });
    const proxy = await proxyTo(origin(server.url), { metrics: { host: '127.0.0.1', port: 0 } });
    const refusal = (url: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const ws = new WebSocket(url, { headers });
        ws.on('open', () => reject(new Error('upgraded')));
        ws.on('error', () => {});
        ws.on('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
      });
    assert.deepEqual(await refusal(`${proxy.url}/v1/realtime`, { authorization: 'Bearer wrong' }), await refusal(server.url, { authorization: 'Bearer wrong' }));
    assert.equal((await refusal(`${proxy.url}/elsewhere`)).status, 404);
    const down = await proxyTo('ws://127.0.0.1:1');
    assert.equal((await refusal(`${down.url}/v1/realtime`)).status, 502);
    await until(() => proxy.open() === 0);
    assert.deepEqual(samplesOf(await scrape(proxy), 'voxbench_upgrade_failures_total', undefined, ['status']).sort(), [['401', 1], ['404', 1]]);
  });
});

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
