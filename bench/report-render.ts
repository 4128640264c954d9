/**
 * Measures how `voxbench report render` scales with the number of sessions: makes a
 * small real run (12 one-turn sessions of the bundled samples against the built-in
 * server, 4 at once, 10x pace), clones its logged sessions into N sessions on a
 * spread-out clock (each round of clones is the whole small run again, moved past
 * the previous round), and renders them in a fresh process, timing it and reading
 * its peak RSS and CPU time. The folder is what a killed run leaves: the report
 * header written before the first session, and the session log; it is then rendered
 * again, as a finished run's folder is, its report.json holding every session. Beside
 * each render, in the same run, the floor: a fresh Node process that only reads and
 * `JSON.parse`s the same folder (`bench/parse-only.ts`); the ratio of their CPU times is
 * the render's cost beyond reading its input, which a loaded machine moves less than
 * either figure. The
 * render reads the log on the threads it would choose by default (`defaultThreads`:
 * one per 64 MiB of log, up to one per core), and the page it wrote is opened in
 * headless Chromium (issue 38's goal: ready in under 3 s at 100,000 sessions).
 *
 *   npm run bench:render                          # writes the table into BENCHMARKS.md
 *   npm run bench:render -- 2000 5000:html        # other cases (sessions[:outputs]); prints only
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../src/run/run.js';
import { renderHtml } from '../src/report/html/index.js';
import { defaultThreads } from '../src/report/digest-log.js';
import { readDrawnTimelines, writeOutputs } from '../src/report/outputs.js';
import { readReport } from '../src/report/recompute.js';
import type { Report } from '../src/report/schema.js';
import { readSessionLog, SESSION_LOG, type LoggedSession } from '../src/report/session-log.js';
import { writeText } from '../src/report/write-text.js';
import { shiftTimeline } from '../src/timeline/types.js';
import { CHROMIUM, launchChromium, openOffline } from '../test/browser.js';

const ALL_OUTPUTS = 'json,html,csv,md';
const given = process.argv.slice(2);
const CASES = (given.length > 0 ? given : [`10000`, `30000`, `100000`, '10000:html']).map((c) => {
  const [sessions, outputs] = c.split(':');
  return { sessions: Number(sessions), outputs: outputs ?? ALL_OUTPUTS };
});
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const CHILD_USAGE = fileURLToPath(new URL('./child-usage.js', import.meta.url));
const PARSE_ONLY = fileURLToPath(new URL('./parse-only.js', import.meta.url));
const BENCHMARKS_MD = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
const SAMPLE_RUN = { sessions: 12, concurrency: 4, speed: 10 };

interface Measurement {
  seconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
}

const root = await mkdtemp(join(tmpdir(), 'voxbench-render-bench-'));
const rows: string[] = [];
const htmlAlone: string[] = [];
try {
  const sampleDir = join(root, 'sample-run');
  const { report } = await run({
    profile: { kind: 'concurrent', concurrency: SAMPLE_RUN.concurrency },
    maxSessions: SAMPLE_RUN.sessions,
    pace: { kind: 'realtime', speed: SAMPLE_RUN.speed },
    outputDir: sampleDir,
  });
  const logged = await readSessionLog(sampleDir);
  for (const { sessions, outputs } of CASES) {
    const dir = join(root, `n${sessions}`);
    await synthesize(dir, report, logged, sessions);
    // Parsed first: rendering writes report.json over the header the parse must read.
    const floor = await measure([PARSE_ONLY, dir]);
    const m = await measure([CLI, 'report', 'render', dir, '--outputs', outputs]);
    const opens = outputs.includes('html') ? await pageOpenSeconds(join(dir, 'report.html')) : undefined;
    // Again, as a finished run's folder is rendered: its report.json now holds every session.
    const again = await measure([CLI, 'report', 'render', dir, '--outputs', outputs]);
    const [log, json] = await Promise.all([mib(join(dir, SESSION_LOG)), mib(join(dir, 'report.json'))]);
    const threads = defaultThreads((await stat(join(dir, SESSION_LOG))).size);
    rows.push(
      `| ${sessions} | ${outputs} | ${threads} | ${log} | ${json} | ${m.seconds.toFixed(1)} | ${m.cpuSeconds.toFixed(1)} | ${m.peakRssMiB.toFixed(0)} | ` +
        `${again.seconds.toFixed(1)} | ${again.peakRssMiB.toFixed(0)} | ` +
        `${floor.cpuSeconds.toFixed(1)} | ${floor.peakRssMiB.toFixed(0)} | ${(m.cpuSeconds / floor.cpuSeconds).toFixed(1)} | ${opens ?? '—'} |`,
    );
    process.stdout.write(`${rows.at(-1)}\n`);
    if (outputs === 'html') {
      // The HTML renderer by itself, on the report just rendered: what the page costs beyond reading and recomputing.
      const rendered = await readReport(dir);
      await readDrawnTimelines(rendered);
      const started = performance.now();
      renderHtml(rendered);
      htmlAlone.push(`renderHtml of ${sessions} sessions, in process: ${((performance.now() - started) / 1000).toFixed(2)} s`);
      process.stdout.write(`${htmlAlone.at(-1)}\n`);
    }
    await rm(dir, { recursive: true });
  }
} finally {
  await rm(root, { recursive: true, force: true });
}

const table = [
  '| sessions | outputs | threads | sessions.jsonl (MiB) | report.json (MiB) | wall time (s) | CPU time (s) | peak RSS (MiB) | rendered again: wall time (s) | rendered again: peak RSS (MiB) | parse only: CPU time (s) | parse only: peak RSS (MiB) | render / parse (CPU) | page ready in Chromium (s) |',
  '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ...rows,
].join('\n');
process.stdout.write(`\n${table}\n`);
if (given.length === 0) {
  const section = [
    '<!-- report-render:start -->',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ` +
      `sessions cloned from ${SAMPLE_RUN.sessions} one-turn sessions of the bundled samples (${SAMPLE_RUN.concurrency} at once, ${SAMPLE_RUN.speed}x pace, 100 ms chunks), ` +
      `rendered from the session log in a fresh process; wall time includes its start; load average ${loadavg()[0]!.toFixed(1)} at the end.`,
    '',
    table,
    '',
    ...htmlAlone.map((line) => `${line}.`),
    '<!-- report-render:end -->',
  ].join('\n');
  const current = await readFile(BENCHMARKS_MD, 'utf8');
  await writeFile(BENCHMARKS_MD, current.replace(/<!-- report-render:start -->[\s\S]*<!-- report-render:end -->/, section));
}

/**
 * Writes `sessions` clones of the logged sessions into `dir`, after the header a run
 * writes before its first session. Clone k is logged session k mod m, moved by whole
 * spans of the sample run, so the clones keep its concurrency.
 */
async function synthesize(dir: string, sample: Report, logged: readonly LoggedSession[], sessions: number): Promise<void> {
  await writeOutputs({ ...sample, stoppedBy: 'interrupted', benchmarks: [] }, dir);
  const { startMs, endMs } = sample.benchmarks[0]!;
  function* lines(): Generator<string> {
    for (let k = 0; k < sessions; k++) {
      const entry = logged[k % logged.length]!;
      const shift = Math.floor(k / logged.length) * (endMs - startMs);
      yield JSON.stringify({ ...entry, record: { ...entry.record, index: k, timeline: shiftTimeline(entry.record.timeline, shift) } }) + '\n';
    }
  }
  await writeText(join(dir, SESSION_LOG), lines());
}

/** Runs a script (`voxbench report render`, or the parse-only floor) with `args` in a fresh process. */
async function measure(args: readonly string[]): Promise<Measurement> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', CHILD_USAGE, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  const seconds = (performance.now() - started) / 1000;
  const usage = /usage maxrss-kib (\d+) cpu-ms (\d+)/.exec(stderr);
  if (code !== 0 || !usage) throw new Error(`${args.join(' ')} exited with ${code}:\n${stderr}`);
  return { seconds, cpuSeconds: Number(usage[2]) / 1000, peakRssMiB: Number(usage[1]) / 1024 };
}

/**
 * The seconds from opening the page offline in headless Chromium until its script is
 * ready and its charts are drawn (`test/browser.ts`'s `openOffline`), three opens, each
 * in a fresh context; '—' without Chromium.
 */
async function pageOpenSeconds(file: string): Promise<string> {
  if (!existsSync(CHROMIUM)) return '—';
  const browser = await launchChromium();
  try {
    const seconds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const { context } = await openOffline(browser, file);
      seconds.push(((performance.now() - started) / 1000).toFixed(1));
      await context.close();
    }
    return seconds.join(', ');
  } finally {
    await browser.close();
  }
}

async function mib(path: string): Promise<string> {
  return ((await stat(path)).size / 2 ** 20).toFixed(0);
}
