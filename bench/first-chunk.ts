/**
 * How soon a run over a large dataset sends its first chunk: 60 clips of 30 s 48 kHz
 * stereo FLAC (the dataset), `voxbench run` spawned against a stub vLLM server
 * that stamps the first audio append, timed from the spawn (Node's start, module loading,
 * listing, reading, preparing every sample, connecting). Three runs: without the cache
 * (every file decoded and resampled, across the worker pool), a first run filling an
 * empty cache, and a second run reading it.
 *
 *   npm run bench:first-chunk -- "LABEL"   # writes the rows, labelled, into BENCHMARKS.md
 *   npm run bench:first-chunk              # prints only
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { encodeFlac } from '../src/audio/flac-encode.js';
import { measuredOn, tableRow, upsertRow } from './figures.js';
import { messageText } from './ws-text.js';

const label = process.argv[2];
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const CLIPS = 60;
const SECONDS = 30;

/** Speech-like enough for the silence check: a tone whose level comes and goes. */
const channel = (hz: number): Float32Array =>
  Float32Array.from({ length: 48_000 * SECONDS }, (_, i) => 0.3 * Math.sin((2 * Math.PI * hz * i) / 48_000) * (0.6 + 0.4 * Math.sin(i / 9_000)));

/** One encoded clip, made distinct per file by a PADDING metadata block of its own length (the cache keys files by their bytes). */
async function writeDataset(dir: string): Promise<void> {
  const flac = encodeFlac([channel(220), channel(330)], 48_000);
  const streamInfoEnd = 4 + 4 + 34;
  for (let i = 0; i < CLIPS; i++) {
    const padding = Buffer.alloc(4 + i + 1);
    padding.writeUInt32BE((0x81000000 | (i + 1)) >>> 0, 0); // last block, type 1 (PADDING), length
    const file = Buffer.concat([flac.subarray(0, streamInfoEnd), padding, flac.subarray(streamInfoEnd)]);
    file[4] = 0x00; // STREAMINFO is no longer the last block
    await writeFile(join(dir, `clip${String(i).padStart(2, '0')}.flac`), file);
  }
}

/** Seconds from spawning `voxbench run` to the stub receiving its first audio append. */
async function firstChunkS(data: string, out: string, cacheFlags: string[]): Promise<number> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as { port: number }).port;
  const start = performance.now();
  const child = spawn(
    process.execPath,
    [
      CLI,
      'run',
      '--target',
      `ws://127.0.0.1:${port}/v1/realtime`,
      '--model',
      'm',
      '--data',
      data,
      '--max-sessions',
      '1',
      '--quiet',
      '--output-dir',
      out,
      ...cacheFlags,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`voxbench run exited (${code}) before sending audio`)));
      server.on('connection', (socket) => {
        socket.send(JSON.stringify({ type: 'session.created' }));
        socket.on('message', (data) => {
          if (messageText(data).includes('input_audio_buffer.append')) resolve((performance.now() - start) / 1000);
        });
      });
    });
  } finally {
    child.kill('SIGKILL');
    server.close();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'voxbench-first-chunk-'));
try {
  const data = join(dir, 'data');
  const cache = join(dir, 'cache');
  await mkdir(data);
  await writeDataset(data);
  const audioS = CLIPS * SECONDS;
  const rows: string[] = [];
  for (const [name, flags] of [
    ['no cache', ['--no-cache']],
    ['empty cache (first run)', ['--cache-dir', cache]],
    ['cache filled (second run)', ['--cache-dir', cache]],
  ] as const) {
    const s = await firstChunkS(data, join(dir, `run-${rows.length}`), [...flags]);
    rows.push(
      tableRow([
        `${CLIPS} × ${SECONDS} s 48 kHz stereo FLAC, ${name}`,
        label ?? '',
        `${measuredOn()}, ${availableParallelism()} threads`,
        s.toFixed(2),
        Math.round(audioS / s),
      ]),
    );
  }
  for (const row of rows) {
    console.log(row);
    if (label) await upsertRow('first-chunk', row, 2);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
