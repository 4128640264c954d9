/**
 * How many concurrent streaming speech-generation sessions the client holds before its
 * receive stamps get late: a frame that arrives while the event loop is busy is stamped
 * when the loop gets to it, so the event-loop delay bounds the receive-stamp delay.
 * Each level runs two sessions per lane (lanes started over 1 s) of `vllm-omni-speech` SSE sessions (bundled samples' texts)
 * against the built-in server in its own process, generating at real time (RTF 1), so
 * each session streams a chunk every 100 ms for as long as it speaks.
 *
 *   npm run bench:tts              # writes the table into BENCHMARKS.md
 *   npm run bench:tts -- 100 300   # other levels; prints only
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../src/dialects/vllm-omni-speech/spec.js';
import { run } from '../src/run/run.js';

const given = process.argv.slice(2).map(Number);
const LEVELS = given.length > 0 ? given : [1, 10, 25, 50, 100, 200];
/** The receive-stamp delay a level must keep at p99. */
const LIMIT_MS = 5;
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const BENCHMARKS_MD = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));

const server = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--capacity', '100000', '--speech-rtf', '1', '--speech-jitter-ms', '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve) => server.stdout.once('data', (d) => resolve(/ws:\/\/[^/\s]+/.exec(String(d))![0].replace(/^ws/, 'http'))));

const rows: string[] = [];
let held = 0;
try {
  for (const concurrency of LEVELS) {
    const { report } = await run({
      target: url,
      protocol: 'vllm-omni-speech',
      model: DEFAULT_VLLM_OMNI_TTS_MODEL,
      speech: { streamFormat: 'sse' },
      quality: { sessions: 0 },
      profile: { kind: 'concurrent', concurrency },
      // Two sessions per lane, lanes started over 1 s: the steady state, not the burst of every session starting at once.
      maxSessions: concurrency * 2,
      rampUpMs: 1000,
    });
    const { summary, clientHealth, sessions } = report.benchmarks[0]!;
    const loop = clientHealth.eventLoopDelay;
    const chunks = sessions.reduce((n, s) => n + s.timeline.received.filter((f) => f.kind === 'audio').length, 0);
    if (loop.p99Ms < LIMIT_MS && summary.sessions.completed === summary.sessions.total) held = Math.max(held, concurrency);
    rows.push(
      `| ${[concurrency, `${summary.sessions.completed}/${summary.sessions.total}`, chunks, loop.p50Ms.toFixed(2), loop.p99Ms.toFixed(2), loop.maxMs.toFixed(1)].join(' | ')} |`,
    );
    process.stdout.write(`${rows.at(-1)}\n`);
  }
} finally {
  server.kill('SIGTERM');
}

const table = [
  '| concurrent sessions | completed | audio chunks received | event-loop delay p50 (ms) | p99 (ms) | max (ms) |',
  '|---:|---:|---:|---:|---:|---:|',
  ...rows,
].join('\n');
process.stdout.write(`\n${table}\nmost sessions with p99 under ${LIMIT_MS} ms: ${held || 'none of the levels'}\n`);
if (given.length === 0) {
  const section = [
    '<!-- tts-client:start -->',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ` +
      'two sessions per lane (lanes started over 1 s) of vllm-omni-speech SSE sessions (bundled texts, 2.9–3.6 s of audio each, 100 ms chunks at real time), server in a second process. ' +
      `Most concurrent sessions with the receive-stamp delay (event-loop delay) p99 under ${LIMIT_MS} ms: **${held || 'none of the levels'}**.`,
    '',
    table,
    '<!-- tts-client:end -->',
  ].join('\n');
  const current = await readFile(BENCHMARKS_MD, 'utf8');
  await writeFile(BENCHMARKS_MD, current.replace(/<!-- tts-client:start -->[\s\S]*<!-- tts-client:end -->/, section));
}
