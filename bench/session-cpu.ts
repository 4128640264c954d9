/**
 * CPU time per session on the client, voxbench beside the bare reader, for the speech-out
 * scale bench's SSE and duplex streams: each client runs a low and a high level (sessions
 * started over 1 s), and the CPU time its process spent from the level's start to its
 * last session's end (`process.cpuUsage`, user and system, every thread) at the high
 * level less that at the low one, over the sessions between, is the marginal cost of a
 * session, whatever each level's fixed cost (the probe's thread, the first calls' JIT).
 * CPU time, so a loaded machine skews it far less than a p99; the median of a few runs.
 * Every level runs in a process of its own, voxbench's on the `voxbench` command's heap.
 * The load is bench/speech-load.ts (SSE, 3 s answers) and `voxbench serve` (duplex),
 * on the last core where taskset can pin them.
 *
 *   node dist/bench/session-cpu.js [low] [high] [runs]    # default 20 100 3 (duplex: a half)
 */
import { execFileSync, spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../src/dialects/vllm-omni-speech/spec.js';
import type { Readable } from 'node:stream';
import { NODE_FLAGS } from '../src/cli/node-flags.js';
import type { RunOptions } from '../src/run/run.js';
import { measuredOn, median, tableRow } from './figures.js';
import type { LevelRequest, LevelResult } from './voxbench-level.js';

const LOW = Number(process.argv[2] ?? 20);
const HIGH = Number(process.argv[3] ?? 100);
const RUNS = Number(process.argv[4] ?? 3);
const RAMP_MS = 1000;
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const LOAD = fileURLToPath(new URL('./speech-load.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-reader.js', import.meta.url));
const LEVEL = fileURLToPath(new URL('./voxbench-level.js', import.meta.url));

/** The servers on the last core where there are two or more and taskset is here. */
function pinned(args: string[]): [string, string[]] {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
  } catch {
    return [process.execPath, args];
  }
  return cpus().length >= 2 ? ['taskset', ['-c', String(cpus().length - 1), process.execPath, ...args]] : [process.execPath, args];
}

async function server(args: string[], pattern: RegExp): Promise<{ url: string; child: ChildProcess }> {
  const [command, argv] = pinned(args);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(pattern.exec(String(d))![0])));
  return { url, child };
}

/** voxbench's CPU ms from the level's start to its last session's end, in a process of its own (bench/voxbench-level.ts). */
function voxbench(options: RunOptions, sessions: number): Promise<number> {
  const request: LevelRequest = { options, sessions, rampMs: RAMP_MS };
  return output<LevelResult>(spawn(process.execPath, [...NODE_FLAGS, LEVEL, JSON.stringify(request)], { stdio: ['ignore', 'pipe', 'inherit'] })).then(
    (r) => r.cpuMs,
  );
}

/** The one JSON line a client process prints. */
async function output<T>(child: ChildProcessByStdio<null, Readable, null>): Promise<T> {
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  await new Promise((resolve) => child.on('exit', resolve));
  return JSON.parse(out) as T;
}

/** The bare reader's CPU ms over its sessions (its own figure). */
async function bare(url: string, dialect: string, sessions: number): Promise<number> {
  const child = spawn(process.execPath, [BARE, url, dialect, String(sessions), String(RAMP_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return (await output<{ cpuMs: number }>(child)).cpuMs;
}

const load = await server([LOAD, '100', '30'], /http:\/\/\S+/);
const serve = await server([CLI, 'serve', '--port', '0', '--capacity', '100000', '--quiet'], /ws:\/\/\S+/);
process.stdout.write(
  `${measuredOn()}; marginal CPU per session between ${LOW} and ${HIGH} sessions (duplex ${LOW / 2} and ${HIGH / 2}), median of ${RUNS}\n\n` +
    '| stream | client | CPU ms per session |\n|---|---|---:|\n',
);
const CASES = [
  {
    name: 'vllm-omni-speech (SSE), 3 s answers',
    levels: [LOW, HIGH],
    vox: { target: load.url, protocol: 'vllm-omni-speech', model: DEFAULT_VLLM_OMNI_TTS_MODEL, speech: { streamFormat: 'sse' }, quality: { sessions: 0 } },
    bare: (n: number) => bare(load.url, 'sse', n),
  },
  {
    name: 'vllm-omni-duplex, the bundled sample',
    levels: [LOW / 2, HIGH / 2],
    vox: { target: serve.url, protocol: 'vllm-omni-duplex', model: 'openbmb/MiniCPM-o-4_5' },
    bare: (n: number) => bare(serve.url, 'duplex', n),
  },
] as const;
try {
  for (const c of CASES) {
    const [low, high] = c.levels;
    for (const [client, measure] of [
      ['voxbench', (n: number) => voxbench(c.vox, n)],
      ['bare reader', c.bare],
    ] as const) {
      const marginal: number[] = [];
      for (let r = 0; r < RUNS; r++) marginal.push(((await measure(high)) - (await measure(low))) / (high - low));
      process.stdout.write(`${tableRow([c.name, client, `${median(marginal).toFixed(2)} (${marginal.map((m) => m.toFixed(2)).join(', ')})`])}\n`);
    }
  }
} finally {
  load.child.kill('SIGTERM');
  serve.child.kill('SIGTERM');
}
