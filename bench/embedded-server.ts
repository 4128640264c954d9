/**
 * Send lag of 100 concurrent real-time sessions against the built-in server that
 * `run()` starts itself when there is no target (what `npx voxbench run` does), so the
 * figures show what hosting the server costs the client's chunk deadlines. The
 * server's capacity is raised above the level, so it adds CPU work, not model delay.
 *
 *   npm run bench:embedded -- "LABEL"   # writes the row LABEL into BENCHMARKS.md
 *   npm run bench:embedded              # prints only
 */
import { run } from '../src/run.js';
import { DEFAULT_LATENCY } from '../src/server/latency-model.js';
import { measuredOn, tableRow, upsertRow } from './table-row.js';

const CONCURRENCY = 100;
const SESSIONS_PER_LANE = 3;
const label = process.argv[2];

const { report } = await run({
  profile: { kind: 'concurrent', concurrency: CONCURRENCY },
  maxSessions: CONCURRENCY * SESSIONS_PER_LANE,
  server: { latency: { ...DEFAULT_LATENCY, capacity: 100_000 } },
});
const { summary, clientHealth } = report.benchmarks[0]!;
const lag = summary.metrics.send_lag_ms!;
const row = tableRow([
  label ?? 'this run',
  measuredOn(),
  `${summary.sessions.completed}/${summary.sessions.total}`,
  lag.count,
  lag.p50.toFixed(2),
  lag.p99.toFixed(2),
  lag.max.toFixed(1),
  clientHealth.eventLoopDelay.p99Ms.toFixed(2),
  summary.metrics.ttft_ms?.p50.toFixed(1) ?? 'n/a',
]);
process.stdout.write(`${row}\n`);
if (label !== undefined) await upsertRow('embedded-server', row);
