/**
 * How many concurrent full-duplex sessions (vllm-omni-duplex, real-time pace, every
 * answer streamed back as audio, every sequenced event acknowledged, playback reported
 * every 250 ms) one client thread holds while its receive stamps stay honest: a frame
 * is stamped when the event loop reaches it, so the loop's delay p99 bounds how late a
 * stamp can be. The built-in server runs in a second process with a capacity above
 * every level, so the figures are the client's.
 *
 *   npm run bench:duplex              # writes the table into BENCHMARKS.md
 *   npm run bench:duplex -- 10 40     # other levels; prints only
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { run } from '../src/run/run.js';

const given = process.argv.slice(2).map(Number);
const LEVELS = given.length > 0 ? given : [1, 25, 50, 100];
/** The receive-stamp delay a level must keep at p99 to count as held. */
const LIMIT_MS = 5;
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const BENCHMARKS_MD = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));

const server = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--capacity', '100000', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => server.stdout.once('data', (d) => resolve(/ws:\/\/\S+/.exec(String(d))![0])));

/** Other work on the machine skews every figure here; the load average says how much there was. */
const load = loadavg()[0]!.toFixed(1);
const rows: string[] = [];
let held = 0;
try {
  for (const concurrency of LEVELS) {
    const { report } = await run({
      target: url,
      protocol: 'vllm-omni-duplex',
      model: 'openbmb/MiniCPM-o-4_5',
      profile: { kind: 'concurrent', concurrency },
      maxSessions: Math.max(3, concurrency * 2),
    });
    const { summary, clientHealth } = report.benchmarks[0]!;
    const frames = report.benchmarks[0]!.sessions.reduce((n, s) => n + s.timeline.counters.framesReceived + s.timeline.counters.framesSent, 0);
    const loop = clientHealth.eventLoopDelay;
    if (loop.p99Ms < LIMIT_MS && summary.sessions.failed === 0) held = Math.max(held, concurrency);
    const row = [
      concurrency,
      `${summary.sessions.completed}/${summary.sessions.total}`,
      frames,
      loop.p50Ms.toFixed(2),
      loop.p99Ms.toFixed(2),
      loop.maxMs.toFixed(1),
      summary.metrics.send_lag_ms!.p99.toFixed(2),
      summary.metrics.voice_to_voice_ms?.p50.toFixed(1) ?? 'n/a',
      summary.metrics.response_ttfp_ms?.p50.toFixed(1) ?? 'n/a',
    ];
    rows.push(`| ${row.join(' | ')} |`);
    process.stdout.write(`${rows.at(-1)}\n`);
  }
} finally {
  server.kill('SIGTERM');
}

const table = [
  '| concurrent sessions | completed | frames both ways | event-loop delay p50 (ms) | p99 (ms) | max (ms) | send lag p99 (ms) | voice_to_voice_ms p50 | response_ttfp_ms p50 |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows,
].join('\n');
process.stdout.write(`\n${table}\nheld with receive-stamp delay p99 under ${LIMIT_MS} ms: ${held} sessions\n`);
if (given.length === 0) {
  const section = [
    '<!-- duplex-concurrency:start -->',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${load} at the start; ` +
      'vllm-omni-duplex, bundled samples, 100 ms chunks, real-time pace, two sessions per lane (three at level 1), server in a second process. ' +
      `The most concurrent sessions held with event-loop (receive-stamp) delay p99 under ${LIMIT_MS} ms: **${held}**.`,
    '',
    table,
    '<!-- duplex-concurrency:end -->',
  ].join('\n');
  const current = await readFile(BENCHMARKS_MD, 'utf8');
  await writeFile(BENCHMARKS_MD, current.replace(/<!-- duplex-concurrency:start -->[\s\S]*<!-- duplex-concurrency:end -->/, section));
}
