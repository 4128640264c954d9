/**
 * One level of voxbench in a process of its own, as the bare reader runs each level in
 * its own: a run in the benches' own process inherits every earlier level's garbage, whose
 * collections then land in a later level's window and its RSS. Started with the heap
 * setting the `voxbench` command runs with (NODE_FLAGS) by bench/speech-scale.ts and
 * bench/session-cpu.ts.
 *
 *   node dist/bench/voxbench-level.js '<json: {options, sessions, rampMs, loadUrl?}>'
 *       # prints one JSON line: {completed, sessions, p99Ms, maxMs, mbPerSession, cpuMs, truth?}
 *
 * `cpuMs` is the process's CPU time (user and system, every thread) from the level's
 * start to its last session's end; `truth`, with `loadUrl` (bench/speech-load.ts), the
 * figures against the load's own stamps (bench/stamp-truth.ts).
 */
import { run, type RunOptions } from '../src/run/run.js';
import { loadStamps, stampTruth, type StampTruth } from './stamp-truth.js';

export interface LevelRequest {
  options: RunOptions;
  sessions: number;
  rampMs: number;
  loadUrl?: string;
}

export interface LevelResult {
  completed: number;
  sessions: number;
  p99Ms: number;
  /** The probe's largest receive-stamp delay: what the client's own waits could add to any one figure. */
  maxMs: number;
  mbPerSession: number;
  cpuMs: number;
  truth?: StampTruth;
}

const { options, sessions, rampMs, loadUrl } = JSON.parse(process.argv[2] ?? '{}') as LevelRequest;
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
if (loadUrl !== undefined) await loadStamps(loadUrl); // forgets the answers before this level
let rss = 0;
const sample = setInterval(() => (rss = Math.max(rss, process.memoryUsage.rss())), 100);
let origin = NaN;
let cpuStart = 0;
let cpuEnd = 0;
let ended = 0;
const { report } = await run({
  ...options,
  profile: { kind: 'concurrent', concurrency: sessions },
  maxSessions: sessions,
  rampUpMs: rampMs,
  // The run's clock starts right after this, on the clock the load stamps with.
  onRunStart: () => (origin = performance.timeOrigin + performance.now()),
  onLevelStart: () => (cpuStart = cpuMs()),
  onSessionEnd: () => {
    if (++ended === sessions) cpuEnd = cpuMs();
  },
});
clearInterval(sample);
const { summary, clientHealth, sessions: records } = report.benchmarks[0]!;
const result: LevelResult = {
  completed: summary.sessions.completed,
  sessions: summary.sessions.total,
  p99Ms: (clientHealth.receiveDelay ?? clientHealth.eventLoopDelay).p99Ms,
  maxMs: (clientHealth.receiveDelay ?? clientHealth.eventLoopDelay).maxMs,
  mbPerSession: rss / 2 ** 20 / sessions,
  cpuMs: cpuEnd - cpuStart,
  ...(loadUrl !== undefined ? { truth: stampTruth(records, await loadStamps(loadUrl), origin) } : {}),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
