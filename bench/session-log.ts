/**
 * What writing the session log costs other sessions' chunk deadlines, two ways:
 *
 * - End to end: 500 concurrent real-time sessions of three turns each (a ~16 KB log
 *   line per session), all starting together so that many end at once while others
 *   still stream, run with an output folder (the session log on) and without,
 *   alternately, three times each, against the built-in server in a second process.
 *   Each cell is the median of the three runs, and every run's p99 is listed.
 * - A burst: 250 of those sessions' records (the sessions that streamed the same
 *   samples, which end together) appended to a log at once, as when they all end in
 *   one turn of the event loop: the longest the event loop is blocked until the log is
 *   closed, and how long until everything is written; beside it the same measurement
 *   of an idle event loop over as long, the floor on this machine. Median of five.
 *
 * With `--against`, another built checkout (e.g. the code before a change) runs
 * too, alternating run by run with this one, so that both meet the same load from
 * whatever else the machine is doing.
 *
 *   npm run bench:log -- "LABEL"                                  # writes the row LABEL into BENCHMARKS.md
 *   npm run bench:log -- "LABEL" --against ../old "OTHER LABEL"   # and the other checkout's row
 *   npm run bench:log                                             # prints only
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as sessionLog from '../src/report/session-log.js';
import { run } from '../src/run/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { median, measuredOn, tableRow, upsertRow } from './figures.js';

const SESSIONS = 500;
const TURNS = 3;
const ROUNDS = 3;
const BURST = 250;
const BURSTS = 5;
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const [label, flag, otherCheckout, otherLabel] = process.argv.slice(2);

type Lag = { p50: number; p99: number; max: number };
type Stall = { stallMs: number; tookMs: number };
interface Build {
  label: string;
  run: typeof run;
  SessionLog: typeof sessionLog.SessionLog;
  withLog: Lag[];
  withoutLog: Lag[];
  bursts: Stall[];
}

const build = (name: string, runFn: typeof run, log: typeof sessionLog): Build => ({
  label: name,
  run: runFn,
  SessionLog: log.SessionLog,
  withLog: [],
  withoutLog: [],
  bursts: [],
});
const builds = [build(label ?? 'this run', run, sessionLog)];
if (flag === '--against') {
  const dist = join(resolve(otherCheckout!), 'dist/src');
  const other = (await import(pathToFileURL(join(dist, 'run.js')).href)) as { run: typeof run };
  builds.push(build(otherLabel ?? otherCheckout!, other.run, (await import(pathToFileURL(join(dist, 'report/session-log.js')).href)) as typeof sessionLog));
}
const alternate = (round: number): Build[] => (round % 2 === 0 ? builds : [...builds].reverse());

/** The longest event-loop stall while `work` runs (1 ms resolution), and how long it took. */
async function stallDuring(work: () => Promise<unknown>): Promise<Stall> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await setTimeout(20);
  const start = performance.now();
  await work();
  const tookMs = performance.now() - start;
  delay.disable();
  return { stallMs: delay.max / 1e6, tookMs };
}

/** Appends `entries` at once to a new log and closes it. */
async function burst(SessionLog: Build['SessionLog'], entries: sessionLog.LoggedSession[]): Promise<Stall> {
  const dir = await mkdtemp(join(tmpdir(), 'voxbench-bench-burst-'));
  try {
    const log = await SessionLog.open(dir, false);
    return await stallDuring(async () => {
      for (const entry of entries) log.append(entry);
      await log.close();
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const server = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--capacity', '100000'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => server.stdout.once('data', (d) => resolve(/ws:\/\/\S+/.exec(String(d))![0])));
const idle: Stall[] = [];
const outputDir = await mkdtemp(join(tmpdir(), 'voxbench-bench-log-'));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const b of alternate(round)) {
      for (const logged of [true, false]) {
        const { report } = await b.run({
          target: url,
          model: DEFAULT_MODEL,
          profile: { kind: 'concurrent', concurrency: SESSIONS },
          maxSessions: SESSIONS,
          turnsPerSession: TURNS,
          ...(logged ? { outputDir } : {}),
        });
        const { summary } = report.benchmarks[0]!;
        if (summary.sessions.completed !== SESSIONS) throw new Error(`only ${summary.sessions.completed}/${SESSIONS} sessions completed`);
        const lag = summary.metrics.send_lag_ms!;
        (logged ? b.withLog : b.withoutLog).push(lag);
        process.stdout.write(
          `round ${round + 1}, ${b.label}, ${logged ? 'with' : 'without'} log: send lag p50 ${lag.p50.toFixed(2)} p99 ${lag.p99.toFixed(2)} max ${lag.max.toFixed(1)} ms\n`,
        );
      }
    }
  }
  // Sessions 0, 2, 4 … streamed samples 1–3 and end together (odd ones 4–6), here from the last logged run.
  const logged = (await sessionLog.readSessionLog(outputDir)).filter((e) => e.record.index % 2 === 0).slice(0, BURST);
  for (let i = 0; i < BURSTS; i++) for (const b of alternate(i)) b.bursts.push(await burst(b.SessionLog, logged));
  // The floor: the same measurement of an idle event loop over as long a window.
  const window = median(builds.flatMap((b) => b.bursts.map((s) => s.tookMs)));
  for (let i = 0; i < BURSTS; i++) idle.push(await stallDuring(() => setTimeout(window)));
} finally {
  server.kill('SIGTERM');
  await rm(outputDir, { recursive: true, force: true });
}

const cells = (runs: Lag[]): string[] => [
  median(runs.map((r) => r.p50)).toFixed(2),
  median(runs.map((r) => r.p99)).toFixed(2),
  median(runs.map((r) => r.max)).toFixed(1),
  runs.map((r) => r.p99.toFixed(1)).join(', '),
];
for (const b of builds) {
  process.stdout.write(
    `${b.label}, bursts of ${BURST}: ${b.bursts.map((s) => `stall ${s.stallMs.toFixed(1)} ms, written in ${s.tookMs.toFixed(1)} ms`).join('; ')}\n`,
  );
  const row = tableRow([
    b.label,
    measuredOn(),
    ...cells(b.withLog),
    ...cells(b.withoutLog),
    median(b.bursts.map((s) => s.stallMs)).toFixed(1),
    median(b.bursts.map((s) => s.tookMs)).toFixed(1),
    median(idle.map((s) => s.stallMs)).toFixed(1),
  ]);
  process.stdout.write(`${row}\n`);
  if (label !== undefined) await upsertRow('session-log', row);
}
