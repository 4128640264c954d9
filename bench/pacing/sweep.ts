/**
 * Pacing at scale, measured server-side: the meter (meter.ts, its own process) stamps
 * every audio chunk on arrival, while `voxbench run` (the real CLI, its own process)
 * streams a 20 s utterance in 100 ms chunks from every session of a level, all lanes
 * started within one chunk period. For each level: lateness against each connection's
 * best schedule (p50, p99, max over all chunks; p99 of the start, steady state and end),
 * and the client's CPU time and peak memory. `--artillery` runs the two Artillery 2.0
 * scenarios (artillery.yml: `think`, and `deadlines`) at the same levels against the
 * same meter, Artillery installed on demand into bench/.artillery (never a project
 * dependency).
 *
 *   npm run bench:pacing -- LABEL                          # 100 .. 4,000 sessions, twice each; writes BENCHMARKS.md rows
 *   npm run bench:pacing -- "" 100 250 --reps 1            # other levels; prints only
 *   npm run bench:pacing -- LABEL 100 --vox="--ramp-up-s 1" --artillery
 *   npm run bench:pacing -- LABEL 1000 --node-defaults     # voxbench on V8's default heap, not the bin's (node-flags.ts)
 *   npm run bench:pacing -- LABEL 2000 --meter-processes 2 # the meter's connections dealt out to two processes
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { measuredOn, tableRow, upsertRow } from '../figures.js';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    reps: { type: 'string', default: '2' },
    artillery: { type: 'boolean', default: false },
    /** Extra `voxbench run` arguments, e.g. "--workers 2" or "--ramp-up-s 1". */
    vox: { type: 'string', default: '' },
    seconds: { type: 'string', default: '20' },
    'node-defaults': { type: 'boolean', default: false },
    'meter-processes': { type: 'string', default: '1' },
  },
});
const [label = '', ...given] = positionals;
const LEVELS = given.length > 0 ? given.map(Number) : [100, 250, 500, 1000, 1500, 2000, 3000, 4000];
const REPS = Number(flags.reps);
const UTTERANCE_S = Number(flags.seconds);
const CHUNK_MS = 100;
const RATE = 16_000;

const root = (path: string): string => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const CLI = root('dist/src/cli/main.js');
const USAGE = root('dist/bench/child-usage.js');
const METER = root('dist/bench/pacing/meter.js');
const WORK = root('bench/out/pacing');
const ARTILLERY_DIR = root('bench/.artillery');
const ARTILLERY_BIN = join(ARTILLERY_DIR, 'node_modules/artillery/bin/run');

interface Spread {
  count: number;
  p50: number;
  p99: number;
  max: number;
}
interface MeterStats {
  connections: number;
  all: Spread;
  start: Spread;
  steady: Spread;
  end: Spread;
}
interface Usage {
  cpuMs: number;
  maxRssKib: number;
  wallMs: number;
}

console.log(`pacing: levels ${LEVELS.join(', ')}, ${REPS} each`);
await mkdir(WORK, { recursive: true });
const dataDir = await utterance();
const meter = spawn(process.execPath, [METER, String(CHUNK_MS), flags['meter-processes']], { stdio: ['ignore', 'pipe', 'inherit'] });
const [url, origin] = await new Promise<[string, string]>((resolve) =>
  meter.stdout.once('data', (d) => resolve(/meter (\S+) control (\S+)/.exec(String(d))!.slice(1) as [string, string])),
);
const artillery = flags.artillery ? installArtillery() : false;

try {
  for (const sessions of LEVELS) {
    for (let rep = 1; rep <= REPS; rep++) {
      await row('voxbench', sessions, rep, () => voxbench(sessions, rep));
      if (!artillery) continue;
      for (const scenario of ['think', 'deadlines']) await row(`artillery (${scenario})`, sessions, rep, () => artilleryRun(scenario, sessions));
    }
  }
} finally {
  meter.kill();
}

/** Runs one measurement and prints (and, with a label, records) its row. */
async function row(tool: string, sessions: number, rep: number, measure: () => Promise<Usage & { sendLagP99?: number }>): Promise<void> {
  await fetch(`${origin}/reset`, { method: 'POST' });
  measuredOn(); // the steal share is counted from here
  const usage = await measure();
  const measured = measuredOn();
  const stats = (await (await fetch(`${origin}/stats`)).json()) as MeterStats;
  const f = (ms: number): string => ms.toFixed(2);
  const sessionSeconds = (stats.all.count * CHUNK_MS) / 1000;
  const line = tableRow([
    label || '-',
    tool + (tool === 'voxbench' && flags.vox ? ` ${flags.vox}` : ''),
    sessions,
    rep,
    stats.connections,
    stats.all.count,
    f(stats.all.p50),
    f(stats.all.p99),
    f(stats.all.max),
    f(stats.start.p99),
    f(stats.steady.p99),
    f(stats.end.p99),
    usage.sendLagP99 === undefined ? 'n/a' : f(usage.sendLagP99),
    (usage.cpuMs / 1000).toFixed(1),
    sessionSeconds > 0 ? (usage.cpuMs / sessionSeconds).toFixed(2) : 'n/a',
    Math.round(usage.maxRssKib / 1024),
    measured,
  ]);
  console.log(line);
  if (label) await upsertRow('pacing', line, 4);
}

/** `voxbench run` against the meter, every session of the level at once; its own send-lag p99 from the report it writes. */
async function voxbench(sessions: number, rep: number): Promise<Usage & { sendLagP99?: number }> {
  const out = join(WORK, `run-${sessions}-${rep}`);
  await rm(out, { recursive: true, force: true });
  const args = [
    'run',
    '--target',
    url,
    '--model',
    'meter',
    '--data',
    dataDir,
    '--concurrency',
    String(sessions),
    '--max-sessions',
    String(sessions),
    '--output-dir',
    out,
    ...flags.vox.split(' ').filter(Boolean),
  ];
  const usage = await measured(
    spawn(process.execPath, [...(flags['node-defaults'] ? [] : NODE_FLAGS), '--import', USAGE, CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] }),
  );
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as {
    benchmarks: Array<{ summary: { metrics: Record<string, { p99: number } | undefined> } }>;
  };
  await rm(out, { recursive: true, force: true });
  const lag = report.benchmarks[0]?.summary.metrics.send_lag_ms;
  return { ...usage, ...(lag ? { sendLagP99: lag.p99 } : {}) };
}

/** An Artillery scenario against the meter, `sessions` virtual users arriving together. */
function artilleryRun(scenario: string, sessions: number): Promise<Usage> {
  const overrides = JSON.stringify({ config: { phases: [{ duration: 1, arrivalCount: sessions }] } });
  const env = { ...process.env, PACING_FRAMES: join(WORK, 'frames.json'), PACING_CHUNK_MS: String(CHUNK_MS) };
  const script = root('bench/pacing/artillery.yml');
  return measured(
    spawn(
      process.execPath,
      ['--import', USAGE, ARTILLERY_BIN, 'run', '--quiet', '--scenario-name', scenario, '--target', url, '--overrides', overrides, script],
      { stdio: ['ignore', 'ignore', 'pipe'], env },
    ),
  );
}

/** Waits for a child preloaded with child-usage.js; its CPU time and peak RSS from the last stderr line. */
async function measured(child: ChildProcess): Promise<Usage> {
  const started = performance.now();
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const usage = /usage maxrss-kib (\d+) cpu-ms (\d+)/.exec(stderr);
  if (code !== 0 || !usage) throw new Error(`the measured process exited with ${code}:\n${stderr.slice(-2000)}`);
  return { maxRssKib: Number(usage[1]), cpuMs: Number(usage[2]), wallMs: performance.now() - started };
}

/**
 * A folder dataset of one synthetic utterance (16 kHz mono): a 220 Hz tone with a slow
 * syllable-rate envelope, so the built-in VAD of a real server would hear speech. Also
 * writes the same audio as vLLM append frames for the Artillery processor.
 */
async function utterance(): Promise<string> {
  const dir = join(WORK, `utterance-${UTTERANCE_S}s`);
  const samples = new Float32Array(UTTERANCE_S * RATE);
  for (let i = 0; i < samples.length; i++) {
    const t = i / RATE;
    samples[i] = 0.3 * Math.sin(2 * Math.PI * 220 * t) * (0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t));
  }
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'utterance.wav'), encodeWaveFromFloat32Channels([samples], RATE, 16));
  await writeFile(join(dir, 'utterance.txt'), 'pacing\n');
  const perChunk = (RATE * CHUNK_MS) / 1000;
  const frames: string[] = [];
  for (let start = 0; start < samples.length; start += perChunk) {
    const pcm = Buffer.alloc(perChunk * 2);
    const end = Math.min(samples.length, start + perChunk);
    for (let i = start; i < end; i++) pcm.writeInt16LE(Math.round(samples[i]! * 32767), (i - start) * 2);
    frames.push(JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') }));
  }
  await writeFile(join(WORK, 'frames.json'), JSON.stringify(frames));
  return dir;
}

/** Artillery 2.0 in bench/.artillery, installed from the npm registry the first time; false (said why) when it cannot be. */
function installArtillery(): boolean {
  if (existsSync(ARTILLERY_BIN)) return true;
  console.log('pacing: installing Artillery 2.0 into bench/.artillery ...');
  // Its browser engine's download is not needed for WebSocket scenarios.
  const env = { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' };
  const npm = spawnSync('npm', ['install', '--prefix', ARTILLERY_DIR, '--no-audit', '--no-fund', 'artillery@2.0.9'], { stdio: 'inherit', env });
  if (npm.status === 0 && existsSync(ARTILLERY_BIN)) return true;
  console.log('pacing: Artillery could not be installed; its rows are skipped');
  return false;
}
