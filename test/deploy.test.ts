import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { readReport } from '../src/report/recompute.js';
import { CLI, tempDir, testServer } from './helpers.js';

const DEPLOY = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));

interface Container {
  command: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
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
    const documents = parseAllDocuments(await readFile(join(DEPLOY, 'voxbench-job.yaml'), 'utf8')).map((d) => d.toJS() as Record<string, any>);
    const job = documents.find((d) => d.kind === 'Job')!;
    assert.equal(job.apiVersion, 'batch/v1');
    assert.equal(job.spec.completionMode, 'Indexed');
    const shards = job.spec.completions as number;
    assert.equal(job.spec.parallelism, shards, 'every shard runs at once');
    const container = job.spec.template.spec.containers[0] as Container;
    const [shell, flag, line] = container.command;
    assert.deepEqual([shell, flag], ['sh', '-c']);
    assert.match(line!, /^exec voxbench run /);
    assert.match(line!, new RegExp(`--shards ${shards} `), '--shards matches completions: the shard index comes from JOB_COMPLETION_INDEX');
    assert.match(line!, /--run-id "\$RUN_ID"/);
    assert.match(line!, /--output-dir "\/results\/\$RUN_ID\/shard-\$JOB_COMPLETION_INDEX"/);
    assert.equal(container.env.find((e) => e.name === 'RUN_ID')?.valueFrom?.fieldRef?.fieldPath, "metadata.labels['batch.kubernetes.io/controller-uid']");
    const mount = container.volumeMounts.find((m) => m.mountPath === '/results')!;
    const claim = job.spec.template.spec.volumes.find((v: { name: string }) => v.name === mount.name).persistentVolumeClaim.claimName;
    assert.ok(documents.some((d) => d.kind === 'PersistentVolumeClaim' && d.metadata.name === claim && d.spec.accessModes.includes('ReadWriteMany')));

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
    assert.deepEqual(pods.map((p) => p.code), pods.map(() => 0), pods.map((p) => p.stderr).join('\n'));
    const readme = await readFile(join(DEPLOY, 'README.md'), 'utf8');
    const merge = /^\s*(voxbench report merge .*)$/m.exec(readme)![1]!;
    const merged = await sh(merge.replace(/\/results/g, results), { RUN_ID: 'uid-1' });
    assert.equal(merged.code, 0, merged.stderr);
    const report = await readReport(join(results, 'uid-1', 'merged'));
    assert.deepEqual(report.benchmarks[0]!.sessions.map((s) => s.index), Array.from({ length: 2 * shards }, (_, i) => i));
    assert.equal(report.mergedFrom?.length, shards);
  });
});
