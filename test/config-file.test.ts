import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Report } from '../src/report/schema.js';
import { CLI, runNode, tempDir } from './helpers.js';

/** Writes `text` as `name` in a fresh folder and runs `voxbench run --config` on it with `flags`. */
async function runWithConfig(name: string, text: string, flags: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string; out: string }> {
  const dir = await tempDir();
  const file = join(dir, name);
  await writeFile(file, text);
  const out = join(dir, 'out');
  const result = await runNode([CLI, 'run', '--config', file, '--output-dir', out, '--quiet', ...flags]);
  return { ...result, out };
}

describe('run --config', () => {
  it('takes a YAML file of flags by their long names, lets the command line win, and records the file in the report', async () => {
    const yaml = [
      '# a scenario kept in a repository',
      'protocol: vllm-omni-speech-ws',
      'concurrency: 2',
      'maxSessions: 2', // camelCase
      'max-seconds: 60', // kebab-case
      'text-rate: 400', // streamed text, which --pace times
      'pace: none',
      'outputs: [json, md]',
      'slo: ["p95(ttfa_ms)<60000"]',
      'quality-sessions: 0',
      'no-cache: true',
    ].join('\n');
    const result = await runWithConfig('scenario.yaml', yaml, ['--max-sessions', '3']);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(await readFile(join(result.out, 'report.json'), 'utf8')) as Report;
    assert.equal(report.config.protocol, 'vllm-omni-speech-ws');
    assert.equal(report.config.task, 'tts');
    assert.deepEqual(report.benchmarks[0]!.profile, { kind: 'concurrent', concurrency: 2 }, 'a concurrency from the file picks the profile as the flag does');
    assert.equal(report.config.maxSessions, 3, 'the flag wins over the file');
    assert.equal(report.config.maxSeconds, 60);
    assert.equal(report.config.pace, 'none');
    assert.deepEqual(report.config.slos, ['p95(ttfa_ms)<60000']);
    await readFile(join(result.out, 'summary.md'), 'utf8');
    const record = report.config.configFile!;
    assert.match(record.path, /scenario\.yaml$/);
    assert.match(record.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(record.set, ['protocol', 'concurrency', 'max-seconds', 'text-rate', 'pace', 'outputs', 'slo', 'quality-sessions', 'no-cache']);
    assert.deepEqual(record.overridden, ['maxSessions']);
  });

  it('reads JSON too', async () => {
    const result = await runWithConfig('run.json', JSON.stringify({ 'max-sessions': 1, pace: '8x', json: true }));
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout) as { levels: Array<{ sessions: { total: number } }> };
    assert.equal(summary.levels[0]!.sessions.total, 1, 'a switch from the file (json) applies');
  });

  it('refuses a bad file, key or value in one line naming the file and the key, exit 2', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['typo.yaml', 'concurency: 2', /unknown key "concurency"; keys are the long names of voxbench run's flags/],
      ['value.yaml', 'concurrency: [1, x]', /key "concurrency": expected whole numbers from 1 up/],
      ['choice.yaml', 'protocol: nope', /key "protocol": Allowed choices are vllm, /],
      ['switch.yaml', 'quiet: yes please', /key "quiet": --quiet is a switch: write true or false/],
      ['object.yaml', 'model: {name: x}', /key "model": --model takes text or a number, got \{"name":"x"\}/],
      ['list.yaml', 'model: [a, b]', /key "model": --model takes one value, not a list/],
      ['secret.yaml', 'apiKey: sk-123', /key "apiKey": keep keys out of files .* api-key-env/],
      ['twice.json', '{"maxSessions": 1, "max-sessions": 2}', /keys "maxSessions" and "max-sessions" set the same flag/],
      ['syntax.yaml', 'pace: [1, 2\n', /not valid YAML or JSON: .* at line 2, column 1$/m],
      ['list-top.yaml', '- pace: none', /expected keys and values/],
    ];
    // Spawned for the exit code and the one line (a parser's message and a flag parser's, each its own path to stderr);
    // the rest in-process, the messages being applyConfigFile's own (a spawn costs more).
    const spawned = new Set(['value.yaml', 'syntax.yaml']);
    const { runCommand } = await import('../src/cli/run-command.js');
    const { applyConfigFile } = await import('../src/cli/config-file.js');
    await Promise.all(
      cases.map(async ([name, text, expected]) => {
        const prefix = new RegExp(`^voxbench: error: --config \\S+${name.replace('.', '\\.')}: `);
        if (spawned.has(name)) {
          const result = await runWithConfig(name, text);
          assert.equal(result.code, 2, `${name}: ${result.stderr}`);
          const lines = result.stderr.trimEnd().split('\n');
          assert.equal(lines.length, 1, `${name}: one line: ${result.stderr}`);
          assert.match(lines[0]!, prefix, name);
          assert.match(lines[0]!, expected, name);
          return;
        }
        const file = join(await tempDir(), name);
        await writeFile(file, text);
        await assert.rejects(applyConfigFile(runCommand, file), (err: Error) => {
          assert.equal(err.name, 'UsageError', `${name}: ${err.message}`);
          assert.ok(!err.message.includes('\n'), `${name}: one line: ${err.message}`);
          assert.match(`voxbench: error: ${err.message}`, prefix, name);
          assert.match(err.message, expected, name);
          return true;
        });
      }),
    );
    const missing = await runNode([CLI, 'run', '--config', '/nonexistent/scenario.yaml']);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, 'voxbench: error: --config /nonexistent/scenario.yaml: cannot read it (ENOENT)\n');
  });
});
