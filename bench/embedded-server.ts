/**
 * Send lag of 100 concurrent real-time sessions against the built-in server that
 * `run()` starts itself when there is no target (what `npx voxbench run` does), so the
 * figures show what hosting the server costs the client's chunk deadlines. The
 * server's capacity is raised above the level, so it adds CPU work, not model delay.
 * Five runs; each cell is their median, and every run's p99 is listed.
 *
 *   npm run bench:embedded -- "LABEL"   # writes the row LABEL into BENCHMARKS.md
 *   npm run bench:embedded              # prints only
 */
import { run } from '../src/run.js';
import { DEFAULT_LATENCY } from '../src/server/latency-model.js';
import { median, measuredOn, tableRow, upsertRow } from './figures.js';

const CONCURRENCY = 100;
const SESSIONS_PER_LANE = 3;
const ROUNDS = 5;
const label = process.argv[2];

const runs: Array<{ completed: number; p50: number; p99: number; max: number; loopP99: number; ttftP50: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const { report } = await run({
    profile: { kind: 'concurrent', concurrency: CONCURRENCY },
    maxSessions: CONCURRENCY * SESSIONS_PER_LANE,
    server: { latency: { ...DEFAULT_LATENCY, capacity: 100_000 } },
  });
  const { summary, clientHealth } = report.benchmarks[0]!;
  const lag = summary.metrics.send_lag_ms!;
  runs.push({ completed: summary.sessions.completed, p50: lag.p50, p99: lag.p99, max: lag.max, loopP99: clientHealth.eventLoopDelay.p99Ms, ttftP50: summary.metrics.ttft_ms?.p50 ?? NaN });
  process.stdout.write(`run ${round + 1}: ${JSON.stringify(runs.at(-1))}\n`);
}

const typical = (key: keyof (typeof runs)[number], digits: number): string => median(runs.map((r) => r[key])).toFixed(digits);
const row = tableRow([
  label ?? 'this run',
  measuredOn(),
  runs.map((r) => `${r.completed}/${CONCURRENCY * SESSIONS_PER_LANE}`).join(', '),
  typical('p50', 2),
  typical('p99', 2),
  typical('max', 1),
  runs.map((r) => r.p99.toFixed(1)).join(', '),
  typical('loopP99', 2),
  typical('ttftP50', 1),
]);
process.stdout.write(`${row}\n`);
if (label !== undefined) await upsertRow('embedded-server', row);
