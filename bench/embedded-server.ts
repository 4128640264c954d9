/**
 * Send lag of concurrent real-time sessions against the built-in server that `run()`
 * starts itself when there is no target (what `npx voxbench run` does), so the
 * figures show what hosting the server costs the client's chunk deadlines: 100
 * sessions at once (three per lane), and 500 (one per lane), where the server has
 * five times the work. The server's capacity is raised above the level, so it adds
 * CPU work, not model delay. Five runs per level; each cell is their median, and
 * every run's p99 is listed.
 *
 * With `--against`, another built checkout (e.g. the code before a change) runs
 * too, alternating run by run with this one, so that both meet the same load from
 * whatever else the machine is doing.
 *
 *   npm run bench:embedded -- "LABEL"                                  # writes the rows LABEL into BENCHMARKS.md
 *   npm run bench:embedded -- "LABEL" --against ../old "OTHER LABEL"   # and the other checkout's rows
 *   npm run bench:embedded                                             # prints only
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { run } from '../src/run/run.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { median, measuredOn, tableRow, upsertRow } from './figures.js';

const LEVELS = [
  { concurrency: 100, sessionsPerLane: 3 },
  { concurrency: 500, sessionsPerLane: 1 },
];
const ROUNDS = 5;
const [label, flag, otherCheckout, otherLabel] = process.argv.slice(2);

const builds: Array<{ label: string; run: typeof run }> = [{ label: label ?? 'this run', run }];
if (flag === '--against') {
  const other = (await import(pathToFileURL(join(resolve(otherCheckout!), 'dist/src/index.js')).href)) as { run: typeof run };
  builds.push({ label: otherLabel ?? otherCheckout!, run: other.run });
}

interface Figures {
  completed: number;
  p50: number;
  p99: number;
  max: number;
  loopP99: number;
  ttftP50: number;
}

for (const { concurrency, sessionsPerLane } of LEVELS) {
  const sessions = concurrency * sessionsPerLane;
  const runs = new Map(builds.map((build) => [build, [] as Figures[]]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      const { report } = await build.run({
        profile: { kind: 'concurrent', concurrency },
        maxSessions: sessions,
        server: { latency: { ...DEFAULT_LATENCY, capacity: 100_000 } },
      });
      const { summary, clientHealth } = report.benchmarks[0]!;
      const lag = summary.metrics.send_lag_ms!;
      const figures = {
        completed: summary.sessions.completed,
        p50: lag.p50,
        p99: lag.p99,
        max: lag.max,
        loopP99: clientHealth.eventLoopDelay.p99Ms,
        ttftP50: summary.metrics.ttft_ms?.p50 ?? NaN,
      };
      runs.get(build)!.push(figures);
      process.stdout.write(`${concurrency} at once, run ${round + 1}, ${build.label}: ${JSON.stringify(figures)}\n`);
    }
  }
  for (const build of builds) {
    const figures = runs.get(build)!;
    const typical = (key: keyof Figures, digits: number): string => median(figures.map((f) => f[key])).toFixed(digits);
    const row = tableRow([
      concurrency,
      build.label,
      measuredOn(),
      figures.map((f) => f.completed).join(', ') + ` of ${sessions}`,
      typical('p50', 2),
      typical('p99', 2),
      typical('max', 1),
      figures.map((f) => f.p99.toFixed(1)).join(', '),
      typical('loopP99', 2),
      typical('ttftP50', 1),
    ]);
    process.stdout.write(`${row}\n`);
    if (label !== undefined) await upsertRow('embedded-server', row, 2);
  }
}
