/**
 * Measures voxbench's own overhead as a client: send lag (actual minus planned send
 * time of each audio chunk) and event-loop delay, at 1, 100 and 500 concurrent
 * real-time sessions, and what `--workers 2` changes at the top levels, against the
 * built-in server running in a separate process.
 *
 *   npm run bench                 # writes the table into BENCHMARKS.md
 *   npm run bench -- 50x1 200x2   # other cases (concurrency x workers); prints only
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { run } from '../src/run/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';

const given = process.argv.slice(2);
const CASES = (given.length > 0 ? given : ['1x1', '100x1', '500x1', '500x2', '1000x1', '1000x2']).map((c) => {
  const [concurrency, workers] = c.split('x').map(Number);
  return { concurrency: concurrency!, workers: workers ?? 1 };
});
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const BENCHMARKS_MD = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));

// The server gets its own process and a capacity above every level, so the figures
// are the client's, not the model's.
const server = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--capacity', '100000'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => server.stdout.once('data', (d) => resolve(/ws:\/\/\S+/.exec(String(d))![0])));

const rows: string[] = [];
try {
  for (const { concurrency, workers } of CASES) {
    const { report } = await run({
      target: url,
      model: DEFAULT_MODEL,
      profile: { kind: 'concurrent', concurrency },
      maxSessions: Math.max(5, concurrency * 2),
      workers,
    });
    const { summary, clientHealth } = report.benchmarks[0]!;
    const lag = summary.metrics.send_lag_ms!;
    const loop = clientHealth.eventLoopDelay;
    const ttft = summary.metrics.ttft_ms;
    const row = [
      concurrency,
      workers,
      `${summary.sessions.completed}/${summary.sessions.total}`,
      lag.count,
      lag.p50.toFixed(2),
      lag.p99.toFixed(2),
      lag.max.toFixed(1),
      loop.p50Ms.toFixed(2),
      loop.p99Ms.toFixed(2),
      loop.maxMs.toFixed(1),
      ttft ? ttft.p50.toFixed(1) : 'n/a',
    ];
    rows.push(`| ${row.join(' | ')} |`);
    process.stdout.write(`${rows.at(-1)}\n`);
  }
} finally {
  server.kill('SIGTERM');
}

const table = [
  '| concurrent sessions | workers | completed | chunks | send lag p50 (ms) | send lag p99 (ms) | send lag max (ms) | event-loop delay p50 (ms) | p99 (ms) | max (ms) | ttft p50 (ms) |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows,
].join('\n');
process.stdout.write(`\n${table}\n`);
if (given.length === 0) {
  const section = [
    '<!-- client-overhead:start -->',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ` +
      'bundled samples (2.7–3.1 s each), 100 ms chunks, real-time pace, two sessions per lane (five at level 1), server in a second process. ' +
      "With workers, event-loop delay is the worst worker's.",
    '',
    table,
    '<!-- client-overhead:end -->',
  ].join('\n');
  const current = await readFile(BENCHMARKS_MD, 'utf8');
  await writeFile(BENCHMARKS_MD, current.replace(/<!-- client-overhead:start -->[\s\S]*<!-- client-overhead:end -->/, section));
}
