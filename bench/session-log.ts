/**
 * What writing the session log costs other sessions' chunk deadlines: 500 concurrent
 * real-time sessions of three turns each (a ~16 KB log line per session), all
 * starting together so that many end at once while others still stream, run with an
 * output folder (the session log on) and without, alternately, three times each,
 * against the built-in server in a second process. Each cell is the median of the
 * three runs, and every run's p99 is listed.
 *
 *   npm run bench:log -- "LABEL"   # writes the row LABEL into BENCHMARKS.md
 *   npm run bench:log              # prints only
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../src/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { median, measuredOn, tableRow, upsertRow } from './figures.js';

const SESSIONS = 500;
const TURNS = 3;
const ROUNDS = 3;
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const label = process.argv[2];

const server = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--capacity', '100000'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => server.stdout.once('data', (d) => resolve(/ws:\/\/\S+/.exec(String(d))![0])));

type Lag = { p50: number; p99: number; max: number };
const withLog: Lag[] = [];
const withoutLog: Lag[] = [];
const outputDir = await mkdtemp(join(tmpdir(), 'voxbench-bench-log-'));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const logged of [true, false]) {
      const { report } = await run({
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
      (logged ? withLog : withoutLog).push(lag);
      process.stdout.write(`round ${round + 1}, ${logged ? 'with' : 'without'} log: send lag p50 ${lag.p50.toFixed(2)} p99 ${lag.p99.toFixed(2)} max ${lag.max.toFixed(1)} ms\n`);
    }
  }
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
const row = tableRow([label ?? 'this run', measuredOn(), ...cells(withLog), ...cells(withoutLog)]);
process.stdout.write(`${row}\n`);
if (label !== undefined) await upsertRow('session-log', row);
