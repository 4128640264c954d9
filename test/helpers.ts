import { execFileSync, spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import type { RunningServer, ServerOptions } from '../src/server/server.js';
import type { AudioInput, ReceivedFrame, SentFrame, SessionTimeline } from '../src/timeline/types.js';
import { fromV1 } from '../src/timeline/v1.js';

// Tests never write into the user's prepared-audio cache unless they name a folder; the processes they start inherit it.
process.env.VOXBENCH_AUDIO_CACHE = 'off';

export const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures', import.meta.url));

/** A temporary folder removed when the test file ends. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voxbench-test-'));
  after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The simulated server on a free loopback port, knowing the bundled samples; closed when the file ends. */
export async function testServer(options: Partial<ServerOptions> = {}): Promise<RunningServer> {
  // Imported here: a file that only spawns the CLI would load the whole server for nothing (a fifth of a CPU-second).
  const [{ loadFolderDataset }, { startServer }] = await Promise.all([import('../src/data/load.js'), import('../src/simulator/start.js')]);
  const { samples } = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
  const server = await startServer({ port: 0, references: samples, ...options });
  after(() => server.close());
  return server;
}

/**
 * run()'s target and model on a simulated server in this thread, shared by the file (call it at
 * the top level): for tests of what a report holds, which does not depend on where the server
 * runs, and a run that starts its own built-in server thread costs about 0.3-0.6 CPU-s more.
 * Tests of what a run with no target does keep the built-in server.
 */
export async function sharedTarget(): Promise<{ target: string; model: string }> {
  const [server, { DEFAULT_MODEL }] = await Promise.all([testServer(), import('../src/server/server.js')]);
  return { target: server.url, model: DEFAULT_MODEL };
}

export interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a node script to completion and collects its output. */
export function runNode(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Waits until `condition` holds, polling every 10 ms; fails after `timeoutMs`: for what a loaded machine gets to late, not a fixed sleep. */
export async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A ws message as text, whichever shape it arrived in: a Buffer, an ArrayBuffer, or the fragments of one message. */
export function messageText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString();
  return Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString();
}

/** A relay in front of a WebSocket server that keeps every JSON event its clients send (`sent`) and the server sends (`received`), in order; closed when the file ends. */
export async function recordingRelay(target: string): Promise<{ url: string; sent: Array<Record<string, unknown>>; received: Array<Record<string, unknown>> }> {
  const sent: Array<Record<string, unknown>> = [];
  const received: Array<Record<string, unknown>> = [];
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((ok) => wss.once('listening', ok));
  after(() => wss.close());
  wss.on('connection', (client, request) => {
    const upstream = new WebSocket(new URL(request.url!, target));
    const waiting: Array<[WebSocket.RawData, boolean]> = [];
    upstream.on('open', () => waiting.splice(0).forEach(([data, binary]) => upstream.send(data, { binary })));
    client.on('message', (data, binary) => {
      if (!binary) sent.push(JSON.parse(messageText(data)) as Record<string, unknown>);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary });
      else waiting.push([data, binary]);
    });
    upstream.on('message', (data, binary) => {
      if (!binary) received.push(JSON.parse(messageText(data)) as Record<string, unknown>);
      client.send(data, { binary });
    });
    client.on('close', () => upstream.close());
    upstream.on('close', () => client.close());
  });
  const { port } = wss.address() as { port: number };
  return { url: `ws://127.0.0.1:${port}${new URL(target).pathname}`, sent, received };
}

/** A WebSocket server on a free loopback port that talks to each client with `talk`; closed when the file ends. */
export async function rawServer(talk: (send: (event: object) => void, ws: WebSocket) => void): Promise<string> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => wss.once('listening', resolve));
  after(() => new Promise((resolve) => wss.close(resolve)));
  wss.on('connection', (ws) => talk((event) => ws.send(JSON.stringify(event)), ws));
  return `ws://127.0.0.1:${(wss.address() as { port: number }).port}/v1/realtime`;
}

/** A throwaway self-signed certificate for localhost and 127.0.0.1, made with openssl, for the wss:// and https:// tests. */
export async function selfSignedCert(): Promise<{ cert: string; key: string }> {
  const dir = await tempDir();
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  const subject = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'];
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', ...subject, '-keyout', key, '-out', cert],
    { stdio: 'ignore' },
  );
  return { cert: await readFile(cert, 'utf8'), key: await readFile(key, 'utf8') };
}

/**
 * A streaming transcription session of one input, built by hand for tests of views and
 * metrics: the input's plan from 0 ms (its reference, word timings or speaker turns; speech
 * to `speechEndMs`, audio to `audioEndMs`), and what the client sent and received.
 */
export function oneInputTimeline(
  plan: Partial<AudioInput> & Pick<AudioInput, 'speechEndMs' | 'audioEndMs'>,
  sent: SentFrame[],
  received: ReceivedFrame[],
): SessionTimeline {
  return {
    task: 'stt',
    turnDetection: 'client',
    plannedStartMs: 0,
    startMs: 0,
    inputs: [{ kind: 'audio', index: 0, sampleId: 's', split: 'default', reference: null, audioStartMs: 0, speechStartMs: 0, eosSource: 'label', ...plan }],
    sent,
    received,
    transport: { kind: 'websocket' },
    counters: { bytesSent: 0, bytesReceived: 0, framesSent: 0, framesReceived: 0 },
  };
}

/** A session that sends and receives nothing, planned and opened at `start` and closed by the client at `end`, ms on the run clock. */
export function spanTimeline(start: number, end: number): SessionTimeline {
  return fromV1({
    turnDetection: 'client',
    turns: [],
    plannedStartMs: start,
    connectStartMs: start,
    chunks: [],
    commits: [],
    updates: [],
    events: [],
    close: { t: end, code: 1000, reason: '', by: 'client' },
    bytesSent: 0,
    bytesReceived: 0,
    framesSent: 0,
    framesReceived: 0,
  });
}

/**
 * A dataset in a new folder: the bundled harvard-01 said by two speakers, A its first four
 * words and B its last four (its RTTM), for speaker tests that need no synthesizer.
 */
export async function twoSpeakerHarvard(): Promise<string> {
  const dir = await tempDir();
  await Promise.all(['wav', 'txt', 'words.json'].map((ext) => copyFile(join(BUNDLED_SAMPLES_DIR, `harvard-01.${ext}`), join(dir, `harvard-01.${ext}`))));
  await writeFile(
    join(dir, 'harvard-01.rttm'),
    'SPEAKER harvard-01 1 0.165 0.955 <NA> <NA> A <NA> <NA>\nSPEAKER harvard-01 1 1.120 1.250 <NA> <NA> B <NA> <NA>\n',
  );
  return dir;
}
