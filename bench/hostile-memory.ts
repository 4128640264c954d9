/**
 * Peak memory against what a hostile server or dataset sends, beside the endless
 * answers (endless-answer.ts): the goal is under 400 MB whatever arrives. Each case runs
 * `voxbench` in a child process (peak RSS from child-usage.js): a run of one session
 * against the built-in server with a fault (one 90 MB WebSocket frame; many large
 * deltas; a server that stops reading while the client streams unpaced), and the
 * reading of a 2-hour silent WAV (115 MB) by `run` and by `dataset inspect`. Prints,
 * per case, how it ended and the child's peak RSS.
 *
 *   npm run build && node dist/bench/hostile-memory.js
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadFolderDataset } from '../src/data/load.js';
import { parseFaultScenario } from '../src/server/faults/faults.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { startServer } from '../src/simulator/start.js';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { messageText } from './ws-text.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const USAGE = fileURLToPath(new URL('./child-usage.js', import.meta.url));
const MB = 1_000_000;

interface Case {
  name: string;
  /** A hand-made vLLM server that answers the final commit with `count` deltas of `bytes` each (a text bomb). */
  bomb?: { count: number; bytes: number };
  /** The fault of the built-in server the run talks to; none: the run uses its own built-in server. */
  fault?: string;
  /** `voxbench` arguments; `{target}` and `{dir}` are filled in. */
  args: string[];
}

/** A 2-hour WAV of silence, 8 kHz mono PCM16: 115 MB. */
async function silentWavFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voxbench-silent-'));
  const bytes = 2 * 3600 * 8000 * 2;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + bytes, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(bytes, 40);
  await writeFile(join(dir, 'silent.wav'), Buffer.concat([header, Buffer.alloc(bytes)]));
  return dir;
}

const silent = await silentWavFolder();
const RUN = ['run', '--max-sessions', '1', '--quiet', '--no-cache'];
const AT = ['--target', '{target}', '--output-dir', '{dir}'];
const CASES: Case[] = [
  { name: 'vllm: one 90 MB text frame', fault: `oversized-frame:${90 * MB}@final`, args: [...RUN, '--protocol', 'vllm', '--model', DEFAULT_MODEL, ...AT] },
  { name: 'vllm: a 540 MB text bomb (540 deltas of 1 MB)', bomb: { count: 540, bytes: MB }, args: [...RUN, '--protocol', 'vllm', '--model', 'm', ...AT] },
  { name: 'vllm: huge deltas (7 of 90 MB)', bomb: { count: 7, bytes: 90 * MB }, args: [...RUN, '--protocol', 'vllm', '--model', 'm', ...AT] },
  {
    name: 'openai: one 90 MB text frame',
    fault: `oversized-frame:${90 * MB}@final`,
    args: [...RUN, '--protocol', 'openai', '--model', 'gpt-4o-transcribe', ...AT],
  },
  {
    name: 'openai: stall-reads, unpaced',
    fault: 'stall-reads@streaming',
    args: [...RUN, '--protocol', 'openai', '--model', 'gpt-4o-transcribe', '--pace', 'none', '--final-timeout-ms', '20000', ...AT],
  },
  { name: 'run: a 2-hour silent WAV (115 MB)', args: [...RUN, '--data', silent, '--output-dir', '{dir}'] },
  { name: 'dataset inspect: a 2-hour silent WAV (115 MB)', args: ['dataset', 'inspect', silent] },
];

/** A vLLM server that, at the final commit, sends `count` deltas of `bytes` characters each, as fast as the socket takes them. */
async function textBomb({ count, bytes }: { count: number; bytes: number }): Promise<{ url: string; origin: string; close(): Promise<void> }> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise((resolve) => server.once('listening', resolve));
  const delta = JSON.stringify({ type: 'transcription.delta', delta: 'x'.repeat(bytes) });
  server.on('connection', (ws) => {
    ws.send(JSON.stringify({ type: 'session.created' }));
    ws.on('message', (data) => {
      if (!/"final":\s*true/.test(messageText(data))) return;
      let sent = 0;
      const pump = (): void => {
        while (sent < count && ws.readyState === ws.OPEN && ws.bufferedAmount < 4 * MB) {
          ws.send(delta);
          sent++;
        }
        if (sent < count && ws.readyState === ws.OPEN) setTimeout(pump, 1);
        else if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'transcription.done', text: 'x' }));
      };
      pump();
    });
  });
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/realtime`;
  return {
    url,
    origin: url,
    close: () => {
      for (const client of server.clients) client.terminate();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function measure(c: Case): Promise<{ ended: string; peakRssMiB: number }> {
  const { samples } = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
  const server = c.bomb
    ? await textBomb(c.bomb)
    : c.fault
      ? await startServer({ port: 0, references: samples, faults: [parseFaultScenario(c.fault)] })
      : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'voxbench-hostile-'));
  try {
    const args = c.args.map((a) =>
      a === '{target}' ? (c.args.includes('vllm') || c.args.includes('openai') ? server!.url : server!.origin) : a === '{dir}' ? dir : a,
    );
    const child = spawn(process.execPath, ['--import', USAGE, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4096)));
    child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4096)));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const rss = /usage maxrss-kib (\d+)/.exec(out);
    if (!rss) throw new Error(`no usage line from the child: ${out}`);
    return { ended: `exit ${code}: ${endedBy(out, dir) ?? (await failureOf(dir)) ?? ''}`, peakRssMiB: Number(rss[1]) / 1024 };
  } finally {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The line that says why a run or an inspection stopped, if it printed one. */
function endedBy(output: string, dir: string): string | undefined {
  const line = output.split('\n').find((l) => /^voxbench: error|silent|skipped|problem/.test(l));
  return line?.replaceAll(dir, 'DIR').slice(0, 160);
}

async function failureOf(dir: string): Promise<string | undefined> {
  try {
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as {
      benchmarks: Array<{ sessions: Array<{ outcome: { status: string; failure?: { class: string; message: string } } }> }>;
    };
    const { outcome } = report.benchmarks[0]!.sessions[0]!;
    return outcome.failure ? `${outcome.failure.class}: ${outcome.failure.message.slice(0, 120)}` : outcome.status;
  } catch {
    return undefined;
  }
}

console.log('Hostile inputs, one session or one dataset each: peak RSS of the voxbench process\n');
console.log('| case | peak RSS, MiB | how it ended |');
console.log('|---|---|---|');
for (const c of CASES) {
  const r = await measure(c);
  console.log(`| ${c.name} | ${r.peakRssMiB.toFixed(0)} | ${r.ended.replaceAll('|', '\\|')} |`);
}
await rm(silent, { recursive: true, force: true });
