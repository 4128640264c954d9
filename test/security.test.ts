import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { run } from '../src/run/run.js';
import { CLI, runNode, selfSignedCert, tempDir, testServer } from './helpers.js';

const KEY = 'sk-test-SECRET-7f3a9c1e';

/** Every file under `dir`, concatenated. */
async function allText(dir: string): Promise<string> {
  const names = await readdir(dir, { recursive: true });
  const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8').catch(() => '')));
  return texts.join('\n');
}

describe('API keys never reach reports or logs', () => {
  it('sends OPENAI_API_KEY as a bearer token and writes it nowhere', async () => {
    const server = await testServer({ apiKey: KEY });
    const out = await tempDir();
    const result = await runNode(
      [
        CLI,
        'run',
        '--protocol',
        'openai',
        '--target',
        server.url,
        '--model',
        'gpt-4o-transcribe',
        '--max-sessions',
        '1',
        '--pace',
        'none',
        '--output-dir',
        out,
      ],
      { OPENAI_API_KEY: KEY },
    );
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /1 completed/, 'the server accepted the key, so it was sent');
    const everything = result.stdout + result.stderr + (await allText(out));
    assert.ok(!everything.includes(KEY), 'the key appears in the output or the report');
    assert.ok(!everything.includes('7f3a9c1e'));
  });

  it('keeps the key out of failure messages and --json output', async () => {
    const server = await testServer({ apiKey: 'another-key' });
    const out = await tempDir();
    const result = await runNode(
      [CLI, 'run', '--target', server.url, '--model', 'm', '--max-sessions', '1', '--api-key-env', 'MY_KEY', '--json', '--output-dir', out],
      { MY_KEY: KEY },
    );
    assert.equal(result.code, 3);
    assert.match(result.stdout, /"httpStatus": 401/);
    assert.ok(!(result.stdout + result.stderr + (await allText(out))).includes(KEY));
  });

  it('says which variable is missing when --api-key-env names an unset one', async () => {
    const result = await runNode([CLI, 'run', '--api-key-env', 'VOXBENCH_TEST_UNSET_VAR']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split('\n')[0], 'voxbench: error: --api-key-env VOXBENCH_TEST_UNSET_VAR: that environment variable is not set');
  });

  it('redacts credentials in the target URL', async () => {
    const { report } = await run({ target: 'ws://user:pw@127.0.0.1:9/v1/realtime?api_key=abc123&x=1', model: 'm', maxSessions: 1 });
    assert.equal(report.config.target, 'ws://REDACTED:REDACTED@127.0.0.1:9/v1/realtime?api_key=REDACTED&x=1');
    assert.ok(!JSON.stringify(report).includes('abc123'));
  });
});

describe('wss:// targets', () => {
  const certificate = selfSignedCert();

  it('connects with --ca, fails as tls without it, and connects with --insecure', async () => {
    const { cert, key } = await certificate;
    const server = await testServer({ tls: { cert, key } });
    assert.match(server.url, /^wss:\/\//);
    const attempt = (tls?: { ca?: string; insecure?: boolean }) =>
      run({ target: server.url, model: 'mistralai/Voxtral-Mini-4B-Realtime-2602', maxSessions: 1, pace: { kind: 'none' }, ...(tls ? { tls } : {}) });
    const trusted = await attempt({ ca: cert });
    assert.equal(trusted.report.benchmarks[0]!.summary.sessions.completed, 1);
    const untrusted = (await attempt()).report.benchmarks[0]!.sessions[0]!.outcome;
    assert.equal(untrusted.status === 'failed' && untrusted.failure.class, 'tls');
    const insecure = await attempt({ insecure: true });
    assert.equal(insecure.report.benchmarks[0]!.summary.sessions.completed, 1);
    assert.deepEqual(insecure.report.config.tls, { ca: false, insecure: true });
  });

  it('`serve --api-key` takes the key in the query where the service does: ?jwt= (Speechmatics), ?token= (ElevenLabs Scribe, AssemblyAI), and nowhere else', async () => {
    const server = await testServer({ apiKey: KEY });
    const base = new URL(server.url).origin.replace(/^http/, 'ws');
    const upgrade = (path: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(`${base}${path}`);
        ws.once('open', () => {
          ws.terminate();
          resolve(101);
        });
        ws.once('unexpected-response', (_, res) => {
          ws.terminate();
          resolve(res.statusCode ?? 0);
        });
        ws.once('error', reject);
      });
    const key = encodeURIComponent(KEY);
    const cases: Array<[string, number]> = [
      [`/v2?jwt=${key}`, 101],
      ['/v2?jwt=wrong', 401],
      [`/v2?token=${key}`, 401],
      [`/v1/speech-to-text/realtime?model_id=scribe_v2_realtime&token=${key}`, 101],
      ['/v1/speech-to-text/realtime?model_id=scribe_v2_realtime&token=wrong', 401],
      [`/v3/ws?sample_rate=16000&token=${key}`, 101],
      [`/v1/listen?encoding=linear16&sample_rate=16000&token=${key}`, 401],
      [`/v1/realtime?jwt=${key}`, 401],
    ];
    const statuses = await Promise.all(cases.map(([path]) => upgrade(path)));
    assert.deepEqual(
      statuses.map((status, i) => [cases[i]![0].replace(key, 'KEY'), status]),
      cases.map(([path, status]) => [path.replace(key, 'KEY'), status]),
    );
  });
});

describe('a key a server refuses', () => {
  const NO_KEYS = { VOXBENCH_API_KEY: '', OPENAI_API_KEY: '', DEEPGRAM_API_KEY: '' };

  it('is named by its source (or as none), with the variables the dialect reads, never by its value', async () => {
    const server = await testServer({ apiKey: 'the-right-key' });
    const origin = new URL(server.url).origin.replace(/^ws/, 'http');
    const cases: Array<{ args: string[]; env?: NodeJS.ProcessEnv; note: string }> = [
      { args: ['--target', server.url, '--model', 'm'], note: 'no API key was sent; vllm reads VOXBENCH_API_KEY (or the variable --api-key-env names)' },
      {
        args: ['--target', server.url, '--model', 'm', '--api-key-env', 'MY_KEY'],
        env: { MY_KEY: KEY },
        note: 'the API key sent came from MY_KEY; vllm reads VOXBENCH_API_KEY (or the variable --api-key-env names)',
      },
      {
        args: ['--protocol', 'openai', '--target', server.url, '--model', 'gpt-4o-transcribe', '--pace', 'none'],
        env: { OPENAI_API_KEY: KEY },
        note: 'the API key sent came from OPENAI_API_KEY; openai reads OPENAI_API_KEY, else VOXBENCH_API_KEY (or the variable --api-key-env names)',
      },
      {
        args: ['--protocol', 'vllm-transcriptions', '--target', origin, '--model', 'openai/whisper-large-v3', '--api-key', KEY],
        note: 'the API key sent came from --api-key; vllm-transcriptions reads VOXBENCH_API_KEY (or the variable --api-key-env names)',
      },
    ];
    await Promise.all(
      cases.map(async ({ args, env, note }) => {
        const out = await tempDir();
        const result = await runNode([CLI, 'run', ...args, '--max-sessions', '1', '--quiet', '--output-dir', out], { ...NO_KEYS, ...env });
        assert.equal(result.code, 3, result.stderr);
        assert.ok(result.stdout.includes(`(${note})`), result.stdout);
        assert.ok(!result.stderr.includes('warning: no API key'), 'a local server is not a hosted service');
        const everything = result.stdout + result.stderr + (await allText(out));
        assert.ok(everything.includes(note), 'the report holds the note');
        assert.ok(!everything.includes(KEY), 'never the key itself');
      }),
    );
  });

  it('a hosted provider run with no key warns before it starts', async () => {
    const result = await runNode(
      [
        CLI,
        'run',
        '--protocol',
        'deepgram',
        '--target',
        'wss://api.deepgram.invalid',
        '--model',
        'nova-3',
        '--max-sessions',
        '1',
        '--connect-timeout-ms',
        '2000',
        '--quiet',
        '--output-dir',
        await tempDir(),
      ],
      NO_KEYS,
    );
    assert.equal(
      result.stderr.split('\n')[0],
      'warning: no API key: api.deepgram.invalid is a hosted service, which refuses sessions without one; set DEEPGRAM_API_KEY or VOXBENCH_API_KEY, or name another variable with --api-key-env',
    );
  });
});
