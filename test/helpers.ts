import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import { loadFolderDataset } from '../src/data/load.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { startServer, type RunningServer, type ServerOptions } from '../src/server/server.js';

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
  const { samples } = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
  const server = await startServer({ port: 0, references: samples, ...options });
  after(() => server.close());
  return server;
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
