/**
 * Endless answers against the default session caps: for each case, a hostile server in
 * this process answers one session without end (WebSocket speech: binary audio frames;
 * HTTP speech: a raw PCM body; HTTP transcription: a server-sent event stream), and
 * `voxbench run` in a child process (peak RSS from child-usage.js) runs that one session
 * with `--final-timeout-ms` set to the case's time, so only the caps can end it sooner.
 * Prints, per case, how the session ended, its kept and counted events, the child's
 * peak RSS and the size of report.json.
 *
 *   npm run bench:endless            # 25 s a case
 *   node dist/bench/endless-answer.js 10
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { messageText } from './ws-text.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const USAGE = fileURLToPath(new URL('./child-usage.js', import.meta.url));
const SECONDS = Number(process.argv[2] ?? 25);
/** 20 ms of 24 kHz PCM16, a typical speech chunk. */
const FRAME = Buffer.alloc(960);
const SSE_EVENT = `data: ${JSON.stringify({ object: 'transcription.chunk', choices: [{ delta: { content: 'word ' } }] })}\n\n`;

interface Case {
  name: string;
  flags: string[];
  /** Starts the hostile server; returns its URL and how to stop it. */
  start(): Promise<{ url: string; stop(): Promise<void> }>;
}

/** Calls `write` until it says the socket is full, then again once `drained` says so, until `alive()` is false. */
function flood(write: () => boolean, drained: (resume: () => void) => void, alive: () => boolean): void {
  const pump = (): void => {
    while (alive()) if (!write()) return drained(pump);
  };
  pump();
}

async function httpServer(contentType: string, chunk: Buffer | string): Promise<{ url: string; stop(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': contentType });
      let open = true;
      res.once('close', () => (open = false));
      flood(
        () => res.write(chunk),
        (resume) => res.once('drain', resume),
        () => open,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const CASES: Case[] = [
  {
    name: 'WebSocket speech (deepgram-aura), endless binary audio',
    flags: ['--protocol', 'deepgram-aura', '--quality-sessions', '0'],
    start: async () => {
      const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
      await new Promise((resolve) => server.once('listening', resolve));
      server.on('connection', (ws) => {
        ws.send(JSON.stringify({ type: 'Metadata' }));
        let flooding = false;
        ws.on('message', (data) => {
          if (flooding || !messageText(data).includes('"Flush"')) return;
          flooding = true;
          flood(
            () => (ws.send(FRAME, { binary: true }), ws.bufferedAmount < 1 << 20),
            (resume) => setTimeout(resume, 1),
            () => ws.readyState === ws.OPEN,
          );
        });
      });
      return {
        url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
        stop: () => {
          for (const client of server.clients) client.terminate();
          return new Promise((resolve) => server.close(() => resolve()));
        },
      };
    },
  },
  {
    name: 'HTTP speech (openai-speech), endless raw PCM body',
    flags: ['--protocol', 'openai-speech', '--stream-format', 'audio', '--quality-sessions', '0'],
    start: () => httpServer('audio/pcm', FRAME),
  },
  {
    name: 'HTTP transcription (vllm-transcriptions --stream), endless SSE',
    flags: ['--protocol', 'vllm-transcriptions', '--stream'],
    start: () => httpServer('text/event-stream', SSE_EVENT),
  },
];

interface Row {
  name: string;
  wallS: number;
  ended: string;
  kept: number;
  counted: number;
  peakRssMiB: number;
  reportMiB: number;
}

async function measure(c: Case): Promise<Row> {
  const server = await c.start();
  const dir = await mkdtemp(join(tmpdir(), 'voxbench-endless-'));
  try {
    const args = [
      '--import',
      USAGE,
      CLI,
      'run',
      '--target',
      server.url,
      '--model',
      'm',
      ...c.flags,
      '--max-sessions',
      '1',
      '--final-timeout-ms',
      String(SECONDS * 1000),
      '--output-dir',
      dir,
      '--quiet',
    ];
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4096)));
    await new Promise((resolve) => child.once('exit', resolve));
    const wallS = (performance.now() - started) / 1000;
    const rss = /usage maxrss-kib (\d+)/.exec(stderr);
    if (!rss) throw new Error(`no usage line from the child: ${stderr}`);
    const reportPath = join(dir, 'report.json');
    const report = JSON.parse(await readFile(reportPath, 'utf8')) as {
      benchmarks: Array<{
        sessions: Array<{
          outcome: { status: string; failure?: { class: string; message: string } };
          timeline: { received: unknown[]; overflow?: { events: number } };
        }>;
      }>;
    };
    const session = report.benchmarks[0]!.sessions[0]!;
    const { failure } = session.outcome;
    return {
      name: c.name,
      wallS,
      ended: failure ? `${failure.class}: ${failure.message}` : session.outcome.status,
      kept: session.timeline.received.length,
      counted: session.timeline.overflow?.events ?? 0,
      peakRssMiB: Number(rss[1]) / 1024,
      reportMiB: (await stat(reportPath)).size / 1024 / 1024,
    };
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

console.log(`Endless answers, one session each, default caps, --final-timeout-ms ${SECONDS * 1000}\n`);
console.log('| case | run, s | kept events | counted past the cap | peak RSS, MiB | report.json, MiB | how it ended |');
console.log('|---|---|---|---|---|---|---|');
for (const c of CASES) {
  const r = await measure(c);
  console.log(
    `| ${r.name} | ${r.wallS.toFixed(1)} | ${r.kept.toLocaleString('en')} | ${r.counted.toLocaleString('en')} | ${r.peakRssMiB.toFixed(0)} | ${r.reportMiB.toFixed(1)} | ${r.ended} |`,
  );
}
