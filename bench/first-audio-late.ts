/**
 * Where a speech session's first audio event loses its milliseconds: one level of
 * voxbench (streaming speech, sessions started over 1 s) against bench/speech-load.ts,
 * each audio event's receive stamp minus the load's write stamp, the first event apart
 * from the later ones and the sessions in the order they started, and for the latest
 * first events, what ran meanwhile: this process's main thread on a core, its other
 * threads (V8's compiler and collector helpers, the probe's sender) on a core, the main
 * thread waiting for one (Linux's per-thread schedstat, read every millisecond), and the
 * collector's pauses (performance entries of type gc).
 * Also each thread's CPU in the first 0.8 s after the level's first session started.
 * With `--warm N`, a run of N sessions in the same process goes first (its code
 * compiled), as a sweep's later levels run. Load and client are pinned as in
 * bench:speech-scale (load on the last core, client on the others).
 *
 *   node dist/bench/first-audio-late.js [sse|ws] [sessions] [--warm N]
 */
import { execFileSync, spawn } from 'node:child_process';
import { openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../src/dialects/vllm-omni-speech/spec.js';
import { percentile } from '../src/metrics/stats.js';
import { run, type RunOptions } from '../src/run/run.js';
import { loadStamps } from './stamp-truth.js';
import { ANSWER_TIMING } from './load-stamps.js';

const args = process.argv.slice(2);
const warmAt = args.indexOf('--warm');
const WARM = warmAt >= 0 ? Number(args.splice(warmAt, 2)[1]) : 0;
const [dialect = 'sse', sessionsArg = '200'] = args;
const SESSIONS = Number(sessionsArg);

const cores = cpus().length;
if (cores >= 2) execFileSync('taskset', ['-a', '-pc', `0-${cores - 2}`, String(process.pid)], { stdio: 'ignore' });
const LOAD = fileURLToPath(new URL('./speech-load.js', import.meta.url));
const load = spawn(cores >= 2 ? 'taskset' : process.execPath, [...(cores >= 2 ? ['-c', `${cores - 1}`, process.execPath] : []), LOAD, '100', '30'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve) => load.stdout.once('data', (d) => resolve(/http:\/\/\S+/.exec(String(d))![0])));

const options: RunOptions =
  dialect === 'sse'
    ? { target: url, protocol: 'vllm-omni-speech', model: DEFAULT_VLLM_OMNI_TTS_MODEL, speech: { streamFormat: 'sse' } }
    : { target: url.replace(/^http/, 'ws'), protocol: 'vllm-omni-speech-ws', model: DEFAULT_VLLM_OMNI_TTS_MODEL };

/** A thread's time on a core and waiting for one, ms (schedstat's first two fields). */
const schedOf = (tid: string): [number, number] => {
  const [run, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
  return [run! / 1e6, wait! / 1e6];
};
const main = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
const line = Buffer.alloc(128);
/** [performance.now(), main on a core, main waiting, the process's CPU (every thread)], every millisecond. */
const samples: Array<[number, number, number, number]> = [];
let sampling = false;
const sample = (): void => {
  const [run, wait] = line
    .toString('latin1', 0, readSync(main, line, 0, 128, 0))
    .split(' ')
    .map(Number);
  const { user, system } = process.cpuUsage();
  samples.push([performance.now(), run! / 1e6, wait! / 1e6, (user + system) / 1000]);
  if (sampling) setTimeout(sample, 1);
};
/** The samples' figures at `t`, interpolated. */
const at = (t: number): number[] => {
  const hi = samples.findIndex(([s]) => s >= t);
  if (hi <= 0) return samples[hi === 0 ? 0 : samples.length - 1]!.slice(1);
  const [a, b] = [samples[hi - 1]!, samples[hi]!];
  const f = (t - a[0]) / (b[0] - a[0]);
  return [1, 2, 3].map((j) => a[j]! + f * (b[j]! - a[j]!));
};
const threads = (): Map<string, number> => new Map(readdirSync('/proc/self/task').map((tid) => [tid, schedOf(tid)[0]]));

/** The collector's pauses, [start, end] on performance.now(). */
const pauses: Array<[number, number]> = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) pauses.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ['gc'] });
/** How much of [from, to] the collector paused the main thread. */
const pausedIn = (from: number, to: number): number => pauses.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, to) - Math.max(a, from)), 0);

if (WARM > 0) await run({ ...options, profile: { kind: 'concurrent', concurrency: WARM }, maxSessions: WARM, rampUpMs: 300 });
await loadStamps(url); // forgets the warm-up's answers
let origin = NaN;
let clockAt = NaN;
const windows: Array<[number, Map<string, number>]> = [];
const { report } = await run({
  ...options,
  profile: { kind: 'concurrent', concurrency: SESSIONS },
  maxSessions: SESSIONS,
  rampUpMs: 1000,
  onRunStart: () => {
    sampling = true;
    sample();
    clockAt = performance.now(); // the run's clock starts right after this
    origin = performance.timeOrigin + clockAt;
  },
  onSessionStart: () => {
    if (windows.length > 0) return;
    const t0 = performance.now();
    windows.push([0, threads()]);
    for (const ms of [50, 100, 200, 400, 800]) setTimeout(() => windows.push([performance.now() - t0, threads()]), ms);
  },
});
sampling = false;
const stamps = await loadStamps(url);
load.kill('SIGTERM');

interface Row {
  order: number;
  first: number;
  onCore: number;
  waiting: number;
  others: number;
  gc: number;
}
const rows: Row[] = [];
const later: number[] = [];
const started = [...report.benchmarks[0]!.sessions].sort((a, b) => a.timeline.startMs - b.timeline.startMs);
for (const [order, { timeline }] of started.entries()) {
  const { transport } = timeline;
  const answer = transport.kind === 'http' ? stamps.sse[String(transport.requests[0]?.serverTiming?.[ANSWER_TIMING])] : stamps.ws[String(transport.localPort)];
  const audio = timeline.received.filter((f) => f.kind === 'audio');
  if (!answer || audio.length !== answer.writesAt.length) continue;
  const late = audio.map((f, k) => f.t - (answer.writesAt[k]! - origin));
  later.push(...late.slice(1));
  const [from, to] = [clockAt + answer.writesAt[0]! - origin, clockAt + audio[0]!.t];
  const [run0, wait0, cpu0] = at(from);
  const [run1, wait1, cpu1] = at(to);
  rows.push({ order, first: late[0]!, onCore: run1! - run0!, waiting: wait1! - wait0!, others: cpu1! - cpu0! - (run1! - run0!), gc: pausedIn(from, to) });
}
const ms = (x: number): string => x.toFixed(1);
const summary = (xs: number[]): string => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `p50 ${ms(percentile(sorted, 50))} p99 ${ms(percentile(sorted, 99))} max ${ms(sorted.at(-1)!)}`;
};
const tenth = Math.ceil(rows.length / 10);
const delay = report.benchmarks[0]!.clientHealth.receiveDelay;
process.stdout.write(
  `${dialect}, ${SESSIONS} sessions${WARM > 0 ? `, after a warm-up run of ${WARM}` : ', a cold process'}; receive stamp minus write stamp (ms):\n` +
    `  first audio event, every session:            ${summary(rows.map((r) => r.first))}\n` +
    `  first audio event, first tenth started:      ${summary(rows.slice(0, tenth).map((r) => r.first))}\n` +
    `  first audio event, the rest:                 ${summary(rows.slice(tenth).map((r) => r.first))}\n` +
    `  later audio events (${later.length}):           ${summary(later)}\n` +
    `  the probe's receive-stamp delay:             p50 ${ms(delay?.p50Ms ?? NaN)} p99 ${ms(delay?.p99Ms ?? NaN)} max ${ms(delay?.maxMs ?? NaN)}\n` +
    'the latest first events: start order, late = main thread on a core + main thread waiting for one; other threads on a core, and the collector pausing the main thread, meanwhile\n',
);
for (const r of [...rows].sort((a, b) => b.first - a.first).slice(0, 6))
  process.stdout.write(`  #${r.order}: ${ms(r.first)} = ${ms(r.onCore)} + ${ms(r.waiting)}; others ${ms(r.others)}, collector ${ms(r.gc)}\n`);
/** When a thread started, ms after this process did (schedstat's siblings in /proc: field 22 of stat, in clock ticks of 10 ms). */
const startOf = (tid: string): number => {
  try {
    return (Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]) - processStart) * 10;
  } catch {
    return NaN;
  }
};
const processStart = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[19]);
process.stdout.write(
  "each thread's CPU (ms) after the level's first session started (main, then the others by id, each with when it started, ms after the process):\n",
);
for (let k = 1; k < windows.length; k++) {
  const [from, before] = windows[k - 1]!;
  const [to, now] = windows[k]!;
  const used = [...now].map(([tid, t]) => [tid, t - (before.get(tid) ?? 0)] as const).filter(([, t]) => t >= 0.5);
  process.stdout.write(
    `  ${ms(from)}-${ms(to)} ms: ${used.map(([tid, t]) => `${tid === String(process.pid) ? 'main' : `${tid} (from ${startOf(tid)})`} ${ms(t)}`).join(', ')}\n`,
  );
}
