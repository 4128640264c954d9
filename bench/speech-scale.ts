/**
 * Speech out at scale: how many streaming speech-generation sessions (and full-duplex
 * sessions) voxbench holds at receive-stamp delay p99 <= 5 ms, beside a bare reader's
 * ceiling on the same streams, at 1 and 2 workers, with memory per session. Each level
 * of each client runs in a process of its own (voxbench's, bench/voxbench-level.ts, with
 * the `voxbench` command's heap setting), so no level inherits an earlier one's garbage.
 *
 * The load is a separate, cheap process (bench/speech-load.ts: pre-encoded answers on
 * schedule) for the SSE (vllm-omni-speech) and WebSocket (vllm-omni-speech-ws) dialects;
 * duplex (vllm-omni-duplex) is answered by `voxbench serve`, which has no cheaper stand-in,
 * for voxbench and the bare reader alike. Where the machine has two cores or more, the servers are
 * pinned to the last one and the clients to the others (taskset), and the bench says so.
 * Each level's sessions start over 1 s and each answer is 3 s of 100 ms chunks, so every
 * level holds all its sessions at once for about 2 s. The levels step finely enough to
 * resolve a ratio (50, 100, 150, 200, 300, 400, 600, 1000; duplex a quarter): voxbench
 * starts at the level every client held before (100; duplex 25), the bare reader at the
 * level voxbench held; each goes up until the first level it loses, or, losing its first,
 * down until the first it holds, so the whole bench runs a few levels per client and
 * stays within about four minutes on a quiet machine. With SSE at 1 worker
 * every session's audio is kept and analysed after the run (the intelligibility round trip
 * included), so its memory per session counts the kept audio; the other rows analyse the
 * first 20 sessions, voxbench's default (at 1 worker; the run analyses none with more).
 *
 *   npm run bench:speech-scale                 # the default levels; prints the rows for BENCHMARKS.md
 *   npm run bench:speech-scale -- 200 400      # other levels (each client starts at the first)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../src/dialects/vllm-omni-speech/spec.js';
import { NODE_FLAGS } from '../src/cli/node-flags.js';
import type { RunOptions } from '../src/run/run.js';
import { measuredOn, tableRow } from './figures.js';
import type { LevelRequest, LevelResult } from './voxbench-level.js';

const given = process.argv.slice(2).map(Number);
const LEVELS = given.length > 0 ? given : [50, 100, 150, 200, 300, 400, 600, 1000];
const DUPLEX_LEVELS = [...new Set(LEVELS.map((n) => Math.max(10, Math.round(n / 4))))];
/** Where each client starts: the level every client held before (or the first level given). */
const START = given.length > 0 ? 0 : LEVELS.indexOf(100);
const WORKERS = [1, 2];
const LIMIT_MS = 5;
const RAMP_MS = 1000;
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const LOAD = fileURLToPath(new URL('./speech-load.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-reader.js', import.meta.url));
const LEVEL = fileURLToPath(new URL('./voxbench-level.js', import.meta.url));

/** Servers on the last core, clients on the others, where there are two or more and taskset is here. */
const cores = cpus().length;
const pinned = cores >= 2 && hasTaskset();
const serverCpus = pinned ? `${cores - 1}` : undefined;
const clientCpus = pinned ? `0-${cores - 2}` : undefined;
const onCpus = (cpuList: string | undefined, args: string[]): [string, string[]] =>
  cpuList ? ['taskset', ['-c', cpuList, process.execPath, ...args]] : [process.execPath, args];

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Starts a server process and resolves with the URL its first line names. */
async function server(args: string[], pattern: RegExp): Promise<{ url: string; child: ChildProcess }> {
  const [command, argv] = onCpus(serverCpus, args);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(pattern.exec(String(d))![0])));
  return { url, child };
}

type Level = Omit<LevelResult, 'cpuMs'>;

/** Runs `script` with `args` on the clients' cores, and parses the one JSON line it prints. */
async function client<T>(args: string[]): Promise<T> {
  const [command, argv] = onCpus(clientCpus, args);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  await new Promise((resolve) => child.on('exit', resolve));
  return JSON.parse(out) as T;
}

/**
 * voxbench's run at one level, in a process of its own (bench/voxbench-level.ts) on the
 * `voxbench` command's heap: its loopback probe's receive-stamp delay, its peak RSS over
 * the sessions, and, against the load process, its figures against the load's stamps.
 */
function voxbench(options: Pick<RunOptions, 'target' | 'protocol' | 'model' | 'speech'>, concurrency: number, workers: number): Promise<Level> {
  const speaks = options.protocol !== 'vllm-omni-duplex';
  const request: LevelRequest = {
    options: {
      ...options,
      workers,
      // Every session's audio kept and analysed where memory per session is the question; elsewhere voxbench's default (the first 20).
      ...(speaks ? { quality: { sessions: workers === 1 && options.protocol === 'vllm-omni-speech' ? concurrency : workers === 1 ? 20 : 0 } } : {}),
    },
    sessions: concurrency,
    rampMs: RAMP_MS,
    ...(options.target !== serve.url ? { loadUrl: load.url } : {}),
  };
  return client<Level>([...NODE_FLAGS, LEVEL, JSON.stringify(request)]);
}

/** The bare reader at one level, split over `processes` processes (one per worker): the worst p99, the RSS summed. */
async function bare(url: string, dialect: 'sse' | 'ws' | 'duplex', concurrency: number, processes: number): Promise<Level> {
  const parts = await Promise.all(
    Array.from({ length: processes }, (_, k) => {
      const share = Math.floor(concurrency / processes) + (k < concurrency % processes ? 1 : 0);
      return client<{ completed: number; sessions: number; receiveDelay: { p99Ms: number; maxMs: number }; rssMb: number }>([
        BARE,
        url,
        dialect,
        String(share),
        String(RAMP_MS),
      ]);
    }),
  );
  return {
    completed: parts.reduce((n, p) => n + p.completed, 0),
    sessions: concurrency,
    p99Ms: Math.max(...parts.map((p) => p.receiveDelay.p99Ms)),
    maxMs: Math.max(...parts.map((p) => p.receiveDelay.maxMs)),
    mbPerSession: parts.reduce((n, p) => n + p.rssMb, 0) / concurrency,
  };
}

const isHeld = (l: Level): boolean => l.p99Ms <= LIMIT_MS && l.completed === l.sessions;
const heldAt = (levels: Array<[number, Level]>): [number, Level] | undefined =>
  levels
    .filter(([, l]) => isHeld(l))
    .sort(([a], [b]) => a - b)
    .at(-1);

/**
 * One client's levels: from `levels[start]` up to the first it loses or, losing that
 * one, down to the first it holds; every level measured is reported as it ends.
 */
async function walk(
  levels: readonly number[],
  start: number,
  measure: (level: number) => Promise<Level>,
  report: (level: number, l: Level) => void,
): Promise<Array<[number, Level]>> {
  const done: Array<[number, Level]> = [];
  const at = async (k: number): Promise<boolean> => {
    const l = await measure(levels[k]!);
    done.push([levels[k]!, l]);
    report(levels[k]!, l);
    return isHeld(l);
  };
  if (await at(start)) {
    for (let k = start + 1; k < levels.length && (await at(k)); k++);
  } else {
    for (let k = start - 1; k >= 0 && !(await at(k)); k--);
  }
  return done;
}

if (pinned) execFileSync('taskset', ['-a', '-pc', clientCpus!, String(process.pid)], { stdio: 'ignore' });
const load = await server([LOAD, '100', '30'], /http:\/\/\S+/);
const serve = await server([CLI, 'serve', '--port', '0', '--capacity', '100000', '--quiet'], /ws:\/\/\S+/);
const where = pinned
  ? `servers (speech-load pid ${load.child.pid}, voxbench serve pid ${serve.child.pid}) on CPU ${serverCpus}, clients (this bench pid ${process.pid}, bare readers) on CPUs ${clientCpus}`
  : `servers and clients share the machine's ${cores} core(s) unpinned`;
process.stdout.write(
  `${measuredOn()}; ${where}\n\n| dialect | workers | sessions | client | completed | receive-stamp delay p99 (ms) | MB per session |\n|---|---:|---:|---|---:|---:|---:|\n`,
);

const CASES = [
  {
    dialect: 'vllm-omni-speech (SSE)',
    bareDialect: 'sse',
    options: { target: load.url, protocol: 'vllm-omni-speech', model: DEFAULT_VLLM_OMNI_TTS_MODEL, speech: { streamFormat: 'sse' } },
    levels: LEVELS,
  },
  {
    dialect: 'vllm-omni-speech-ws',
    bareDialect: 'ws',
    options: { target: load.url.replace(/^http/, 'ws'), protocol: 'vllm-omni-speech-ws', model: DEFAULT_VLLM_OMNI_TTS_MODEL },
    levels: LEVELS,
  },
  {
    dialect: 'vllm-omni-duplex',
    bareDialect: 'duplex',
    options: { target: serve.url, protocol: 'vllm-omni-duplex', model: 'openbmb/MiniCPM-o-4_5' },
    levels: DUPLEX_LEVELS,
  },
] as const;

const summary: string[] = [];
const truths: string[] = [];
const worst = (values: number[]): string => (values.length > 0 ? Math.max(...values.map(Math.abs)).toFixed(2) : 'n/a');
try {
  for (const c of CASES) {
    for (const workers of WORKERS) {
      const report = (client: string) => (level: number, l: Level) =>
        process.stdout.write(
          `${tableRow([c.dialect, workers, level, client, `${l.completed}/${l.sessions}`, l.p99Ms.toFixed(2), l.mbPerSession.toFixed(2)])}\n`,
        );
      const vox = await walk(c.levels, START, (level) => voxbench(c.options, level, workers), report('voxbench'));
      // The bare reader starts where voxbench held: below that it holds too, as a rule (else it walks down).
      const voxHeld = heldAt(vox);
      const ceiling = await walk(
        c.levels,
        voxHeld ? c.levels.indexOf(voxHeld[0]) : START,
        (level) => bare(c.bareDialect === 'duplex' ? serve.url : load.url, c.bareDialect, level, workers),
        report('bare reader'),
      );
      const held = heldAt(vox);
      const top = heldAt(ceiling);
      summary.push(
        tableRow([
          c.dialect,
          workers,
          held?.[0] ?? 'none',
          top?.[0] ?? 'none',
          held && top ? (held[0] / top[0]).toFixed(2) : 'n/a',
          held ? held[1].mbPerSession.toFixed(2) : 'n/a',
        ]),
      );
      const truth = held?.[1].truth;
      if (truth) {
        const p50 = [...truth.ttfaMs].sort((a, b) => a - b)[Math.floor(truth.ttfaMs.length / 2)];
        // The sessions in the order they started: a cold client's first tenth apart from the rest.
        const first = Math.ceil(truth.ttfaMs.length / 10);
        truths.push(
          tableRow([
            c.dialect,
            workers,
            held[0],
            `${truth.matched}/${truth.sessions}`,
            p50?.toFixed(2) ?? 'n/a',
            worst(truth.ttfaMs.slice(0, first)),
            worst(truth.ttfaMs.slice(first)),
            truth.laterAudio.p50Ms.toFixed(2),
            truth.laterAudio.p99Ms.toFixed(2),
            truth.laterAudio.maxMs.toFixed(2),
            held[1].maxMs.toFixed(2),
            worst(truth.stallMs),
            worst(truth.stallCount),
          ]),
        );
      }
    }
  }
} finally {
  load.child.kill('SIGTERM');
  serve.child.kill('SIGTERM');
}
process.stdout.write(
  `\nHeld at receive-stamp delay p99 <= ${LIMIT_MS} ms (levels ${LEVELS.join(', ')}; duplex ${DUPLEX_LEVELS.join(', ')}; voxbench from ${LEVELS[START]} and ${DUPLEX_LEVELS[START]}, the bare reader from the level voxbench held):\n\n` +
    '| dialect | workers | voxbench sessions held | bare reader sessions held | ratio | MB per session at the level held |\n|---|---:|---:|---:|---:|---:|\n' +
    `${summary.join('\n')}\n` +
    "\nvoxbench's figures at the level held against the load's own stamps (bench/speech-load.ts stamps each chunk as it writes it; " +
    "voxbench minus the same figure with each audio event at its write stamp; the TTFA difference is its first audio event's receive stamp minus its write stamp, " +
    "its max in the first tenth of the sessions started apart from the rest; the later audio events pooled; and the loopback probe's largest receive-stamp delay):\n\n" +
    '| dialect | workers | sessions | matched | TTFA difference p50 (ms) | max, first tenth started (ms) | max, the rest (ms) | later audio events p50 (ms) | p99 (ms) | max (ms) | probe max (ms) | stall_ms difference max (ms) | stall_count difference max |\n' +
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n' +
    `${truths.join('\n')}\n`,
);
