/**
 * What `voxbench proxy` costs the traffic it meters: 200 concurrent real-time
 * sessions (vLLM dialect: a base64 append of 100 ms of 16 kHz audio every 100 ms per
 * session, 2000 frames/s in all) against an acknowledging server, once straight to
 * the server and once through the proxy, each in its own process. Each append is
 * answered at once with a `progress` event, so every frame's round trip is timed;
 * what the proxy adds is the difference of the round-trip percentiles (one hop each
 * way: the frame up and its acknowledgement down). The proxy's CPU time over the run
 * gives its CPU per 100 sessions. Then 10 sessions of `voxbench run` go through the
 * proxy, and the median TTFT and commit-to-flush it observes are set against the
 * benchmark's own on the same sessions; and 10 of speech generation (vLLM-Omni's
 * speech WebSocket), their median TTFA.
 *
 *   npm run bench:proxy -- "LABEL"    # writes the row LABEL into BENCHMARKS.md
 *   npm run bench:proxy               # prints only
 *   npm run bench:proxy -- --sessions 20 --seconds 5   # a smaller load (a shared machine)
 *   npm run bench:proxy -- LABEL --node-defaults        # the processes on V8's default heap, not the bin's (node-flags.ts)
 *   node dist/bench/proxy-overhead.js --ack-server   # (the server role, spawned by the bench)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket, { WebSocketServer } from 'ws';
import { summarize } from '../src/metrics/stats.js';
import { readReport } from '../src/report/recompute.js';
import { run, type RunOptions } from '../src/run/run.js';
import type { Report } from '../src/report/schema.js';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../src/dialects/vllm-omni-speech/spec.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { NODE_FLAGS } from '../src/cli/node-flags.js';
import { measuredOn, tableRow, upsertRow } from './figures.js';
import { messageText } from './ws-text.js';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'ack-server': { type: 'boolean' },
    'node-defaults': { type: 'boolean', default: false },
    sessions: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '15' },
  },
});
const SESSIONS = Number(flags.sessions);
const SECONDS = Number(flags.seconds);
const LABEL = positionals[0];
const CHUNK_MS = 100;
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const USAGE = fileURLToPath(new URL('./child-usage.js', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

if (flags['ack-server']) {
  // Answers every append with the audio consumed so far, as seed 001's server does.
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  wss.on('connection', (ws) => {
    let bytes = 0;
    ws.send('{"type":"session.created"}');
    ws.on('message', (data) => {
      bytes += (data as Buffer).length;
      ws.send(`{"type":"progress","audio_bytes":${bytes}}`);
    });
  });
  wss.on('listening', () => process.stdout.write(`listening on ws://127.0.0.1:${(wss.address() as { port: number }).port}/v1/realtime \n`));
} else {
  await bench();
}

/** A child process that prints `listening on URL`, on the heap the `voxbench` bin runs with; `stop` ends it and returns its CPU ms (child-usage). */
async function child(args: string[]): Promise<{ url: string; stop(): Promise<number> }> {
  const proc = spawn(process.execPath, [...(flags['node-defaults'] ? [] : NODE_FLAGS), '--import', USAGE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const url = await new Promise<string>((resolve) =>
    proc.stdout.on('data', () => /listening on (\S+?)[, ]/.exec(out) && resolve(/listening on (\S+?)[, ]/.exec(out)![1]!)),
  );
  return {
    url,
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
      return Number(/cpu-ms (\d+)/.exec(err)?.[1] ?? NaN);
    },
  };
}

/**
 * 200 real-time sessions against `url` for SECONDS: every append's round trip, ms, and
 * those of the steady state, sent a second or more after the last session opened (while
 * sessions connect, the proxy's upgrade work delays the frames of those already open).
 */
async function load(url: string): Promise<{ all: number[]; steady: number[] }> {
  const frame = `{"type":"input_audio_buffer.append","audio":"${Buffer.alloc((16_000 * 2 * CHUNK_MS) / 1000).toString('base64')}"}`;
  const rtts: Array<{ sentMs: number; ms: number }> = [];
  let lastOpenMs = 0;
  const session = (offset: number) =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      const pending: number[] = [];
      ws.on('error', reject);
      ws.on('message', (data) => {
        if (messageText(data).includes('progress')) {
          const sentMs = pending.shift()!;
          rtts.push({ sentMs, ms: performance.now() - sentMs });
        }
      });
      ws.on('open', () => {
        lastOpenMs = Math.max(lastOpenMs, performance.now());
        ws.send('{"type":"session.update","model":"m"}');
        ws.send('{"type":"input_audio_buffer.commit"}');
        const start = performance.now() + offset;
        let k = 0;
        const tick = (): void => {
          const now = performance.now();
          while (start + k * CHUNK_MS <= now && k < (SECONDS * 1000) / CHUNK_MS) {
            pending.push(performance.now());
            ws.send(frame);
            k++;
          }
          if (k < (SECONDS * 1000) / CHUNK_MS) setTimeout(tick, Math.max(0, start + k * CHUNK_MS - performance.now()));
          else setTimeout(() => (ws.close(), resolve()), 500);
        };
        setTimeout(tick, offset);
      });
    });
  // Sessions spread over one chunk interval, as independent callers are.
  await Promise.all(Array.from({ length: SESSIONS }, (_, i) => session((i * CHUNK_MS) / SESSIONS)));
  return { all: rtts.map((r) => r.ms), steady: rtts.filter((r) => r.sentMs >= lastOpenMs + 1000).map((r) => r.ms) };
}

async function bench(): Promise<void> {
  const server = await child([SELF, '--ack-server']);
  const directRtts = await load(server.url);
  const [direct, directSteady] = [summarize(directRtts.all)!, summarize(directRtts.steady)!];
  const proxy = await child([
    CLI,
    'proxy',
    '--listen',
    '127.0.0.1:0',
    '--upstream',
    new URL(server.url).origin.replace(/^http/, 'ws'),
    '--protocol',
    'vllm',
    '--quiet',
  ]);
  const throughRtts = await load(`${proxy.url}/v1/realtime`);
  const [through, throughSteady] = [summarize(throughRtts.all)!, summarize(throughRtts.steady)!];
  const proxyCpuMs = await proxy.stop();
  await server.stop();
  const cpuPer100 = proxyCpuMs / (SESSIONS / 100) / (SECONDS + 0.5);

  // The same sessions, measured by the benchmark and observed by the proxy: transcription, then speech generation.
  const [stt, tts] = [
    await observedBeside([], [], { target: '/v1/realtime', model: DEFAULT_MODEL, eos: 'audio_end' }),
    await observedBeside(['--speech-jitter-ms', '0'], ['--protocol', 'vllm-omni-speech-ws'], {
      target: '/',
      protocol: 'vllm-omni-speech-ws',
      model: DEFAULT_VLLM_OMNI_TTS_MODEL,
    }),
  ];

  const row = tableRow([
    LABEL ?? `this run (${SESSIONS} sessions, ${SECONDS} s)`,
    measuredOn(),
    `${direct.count} / ${through.count}`,
    direct.p50.toFixed(2),
    through.p50.toFixed(2),
    (through.p50 - direct.p50).toFixed(2),
    direct.p99.toFixed(2),
    through.p99.toFixed(2),
    (through.p99 - direct.p99).toFixed(2),
    (throughSteady.p99 - directSteady.p99).toFixed(2),
    `${(cpuPer100 / 10).toFixed(1)}%`,
    gap(stt, 'ttft_ms'),
    gap(stt, 'commit_to_flush_ms'),
    gap(tts, 'ttfa_ms'),
  ]);
  process.stdout.write(`${row}\n`);
  if (LABEL !== undefined) await upsertRow('proxy-overhead', row);
}

/**
 * 10 sessions of `voxbench run` against a built-in server (`serveArgs`) through a proxy
 * (`proxyArgs`), each in its own process: the benchmark's report and the proxy's.
 */
async function observedBeside(
  serveArgs: string[],
  proxyArgs: string[],
  options: { target: string } & Omit<RunOptions, 'target'>,
): Promise<{ report: Report; observed: Report }> {
  const dir = await mkdtemp(join(tmpdir(), 'voxbench-proxy-bench-'));
  const server = await child([CLI, 'serve', '--port', '0', '--quiet', ...serveArgs]);
  const observer = await child([
    CLI,
    'proxy',
    '--listen',
    '127.0.0.1:0',
    '--upstream',
    new URL(server.url).origin.replace(/^http/, 'ws'),
    '--output-dir',
    dir,
    '--quiet',
    ...proxyArgs,
  ]);
  const { report } = await run({ ...options, target: `${observer.url}${options.target}`, maxSessions: 10 });
  await new Promise((resolve) => setTimeout(resolve, 200));
  await observer.stop();
  await server.stop();
  const observed = await readReport(dir);
  await rm(dir, { recursive: true, force: true });
  return { report, observed };
}

/** The benchmark's median of `metric` less the proxy's, on the same sessions, ms. */
function gap({ report, observed }: { report: Report; observed: Report }, metric: string): string {
  const values = (r: Report) => r.benchmarks[0]!.sessions.flatMap((s) => s.metrics.inputs.map((i) => i[metric]!));
  return (summarize(values(report))!.p50 - summarize(values(observed))!.p50).toFixed(2);
}
