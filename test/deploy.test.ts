import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { NODE_FLAGS } from '../src/cli/node-flags.js';
import { readReport } from '../src/report/recompute.js';
import { CLI, runNode, tempDir, testServer } from './helpers.js';

const DEPLOY = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The Dockerfile's last stage laid out in `app` as the image would hold it: each COPY of
 * the build context copied from the repository, the build stage's `/app/dist/src` taken
 * from this build, and node_modules holding only the production dependencies (what
 * `npm ci --omit=dev` installs), linked from the repository's. No Docker engine needed.
 */
async function imageLayout(app: string): Promise<void> {
  const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
  const stage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  for (const [, from, args] of stage.matchAll(/^COPY (?:--from=(\S+) )?(.+)$/gm)) {
    const parts = args!.trim().split(/\s+/);
    const dest = parts.pop()!;
    for (const source of parts) {
      const path = from ? join(ROOT, relative('/app', source)) : join(ROOT, source);
      const target = join(app, dest.endsWith('/') || parts.length > 1 ? join(dest, source.split('/').pop()!) : dest);
      await mkdir(dirname(target), { recursive: true });
      await cp(path, target, { recursive: true });
    }
  }
  const production = execFileSync('npm', ['ls', '--omit=dev', '--parseable', '--all'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .map((line) => relative(join(ROOT, 'node_modules'), line))
    .filter((name) => name && !name.startsWith('..') && !name.includes('node_modules'));
  for (const name of production) {
    await mkdir(dirname(join(app, 'node_modules', name)), { recursive: true });
    await symlink(join(ROOT, 'node_modules', name), join(app, 'node_modules', name));
  }
}

let laidOut: Promise<string> | undefined;
/** One image layout for the tests that read it (it lists the production dependencies with `npm ls`: seconds), removed when the file ends. */
const image = (): Promise<string> =>
  (laidOut ??= mkdtemp(join(tmpdir(), 'voxbench-test-')).then(async (app) => {
    await imageLayout(app);
    return app;
  }));
after(async () => {
  if (laidOut) await rm(await laidOut, { recursive: true, force: true });
});

interface Container {
  command: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
}

/** The fields of deploy/kubernetes's documents that the test reads: the Job's, and its claim's. */
interface Manifest {
  kind: string;
  apiVersion: string;
  metadata: { name: string };
  spec: {
    completionMode?: string;
    completions?: number;
    parallelism?: number;
    template?: { spec: { containers: Container[]; volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }> } };
    accessModes?: string[];
  };
}

/** Runs a shell command line as a pod would, with `voxbench` on the PATH being this build's CLI. */
async function sh(line: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const bin = await tempDir();
  await writeFile(join(bin, 'voxbench'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(join(bin, 'voxbench'), 0o755);
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', line], { env: { ...process.env, ...env, PATH: `${bin}:${process.env.PATH}` }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('deploy/kubernetes', () => {
  it('the Indexed Job runs voxbench run with the shard index, one run id and a folder per shard; its pods and the documented merge make one report', async () => {
    const documents = parseAllDocuments(await readFile(join(DEPLOY, 'voxbench-job.yaml'), 'utf8')).map((d) => d.toJS() as Manifest);
    const job = documents.find((d) => d.kind === 'Job')!;
    assert.equal(job.apiVersion, 'batch/v1');
    assert.equal(job.spec.completionMode, 'Indexed');
    const shards = job.spec.completions!;
    assert.equal(job.spec.parallelism, shards, 'every shard runs at once');
    const { containers, volumes } = job.spec.template!.spec;
    const container = containers[0]!;
    const [shell, flag, line] = container.command;
    assert.deepEqual([shell, flag], ['sh', '-c']);
    assert.match(line!, /^exec voxbench run /);
    assert.match(line!, new RegExp(`--shards ${shards} `), '--shards matches completions: the shard index comes from JOB_COMPLETION_INDEX');
    assert.match(line!, /--run-id "\$RUN_ID"/);
    assert.match(line!, /--output-dir "\/results\/\$RUN_ID\/shard-\$JOB_COMPLETION_INDEX"/);
    assert.equal(container.env.find((e) => e.name === 'RUN_ID')?.valueFrom?.fieldRef?.fieldPath, "metadata.labels['batch.kubernetes.io/controller-uid']");
    const mount = container.volumeMounts.find((m) => m.mountPath === '/results')!;
    const claim = volumes.find((v) => v.name === mount.name)!.persistentVolumeClaim!.claimName;
    assert.ok(documents.some((d) => d.kind === 'PersistentVolumeClaim' && d.metadata.name === claim && d.spec.accessModes!.includes('ReadWriteMany')));

    // Each pod's command, as the pod runs it (the results volume a temporary folder), then the README's merge step.
    const server = await testServer();
    const results = await tempDir();
    const pod = (index: number) =>
      sh(line!.replace(/\/results/g, results).replace('--metrics-port 0.0.0.0:9464', '--metrics-port 0'), {
        TARGET: server.url,
        MODEL: container.env.find((e) => e.name === 'MODEL')!.value!,
        LOAD_FLAGS: `--concurrency ${shards} --max-sessions ${2 * shards} --pace none`,
        RUN_ID: 'uid-1',
        JOB_COMPLETION_INDEX: String(index),
      });
    const pods = await Promise.all(Array.from({ length: shards }, (_, i) => pod(i)));
    assert.deepEqual(
      pods.map((p) => p.code),
      pods.map(() => 0),
      pods.map((p) => p.stderr).join('\n'),
    );
    const readme = await readFile(join(DEPLOY, 'README.md'), 'utf8');
    const merge = /^\s*(voxbench report merge .*)$/m.exec(readme)![1]!;
    const merged = await sh(merge.replace(/\/results/g, results), { RUN_ID: 'uid-1' });
    assert.equal(merged.code, 0, merged.stderr);
    const report = await readReport(join(results, 'uid-1', 'merged'));
    assert.deepEqual(
      report.benchmarks[0]!.sessions.map((s) => s.index),
      Array.from({ length: 2 * shards }, (_, i) => i),
    );
    assert.equal(report.mergedFrom?.length, shards);
  });

  it('the image holds what voxbench needs at run time: a run of each task, and every report format, from its files and production dependencies alone', async () => {
    const app = await image();
    const files = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    const present = new Set(await readdir(app));
    for (const file of files.filter((f) => f !== 'docs')) assert.ok(present.has(file.split('/')[0]!), `the image lacks ${file}, which the package ships`);
    const cli = join(app, 'dist/src/cli/main.js');
    // Each run its own process and folder, so all four at once.
    await Promise.all(
      ['vllm', 'vllm-omni-speech', 'vllm-omni-duplex', 'vllm-transcriptions'].map(async (protocol) => {
        const out = join(app, `out-${protocol}`);
        const run = await runNode(
          [
            cli,
            'run',
            '--protocol',
            protocol,
            ...(protocol === 'vllm' || protocol === 'vllm-omni-duplex' ? ['--pace', 'none'] : []),
            '--max-sessions',
            '2',
            '--outputs',
            'json,csv,html,md',
            '--output-dir',
            out,
            '--quiet',
          ],
          { NODE_ENV: 'production' },
        );
        assert.equal(run.code, 0, `${protocol}: ${run.stderr}`);
        assert.ok((await readdir(out)).includes('report.html'), protocol);
      }),
    );
  });

  it("the image's voxbench runs Node with the heap settings of node-flags.ts, through its shebang line", async () => {
    const app = await image();
    const cli = join(app, 'dist/src/cli/main.js');
    const [shebang] = (await readFile(cli, 'utf8')).split('\n', 1);
    assert.equal(shebang, `#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
    // As the image's `RUN chmod +x` and link make it, run by the kernel through its first line.
    await chmod(cli, 0o755);
    const version = execFileSync(cli, ['--version'], { encoding: 'utf8', env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` } });
    assert.match(version, /^\d+\.\d+\.\d+/);
  });
});
