import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { flagMessage } from '../src/cli/option-flags.js';
import { OptionsError } from '../src/config/errors.js';
import type { Report } from '../src/report/schema.js';
import type { RunOptions } from '../src/run/run.js';
import { readSessionLog } from '../src/report/session-log.js';
import { CLI, runNode, sharedTarget, tempDir } from './helpers.js';

// For runs whose checks do not depend on where the server runs: the file's in-process one saves each a server thread (see sharedTarget).
const { target, model } = await sharedTarget();

describe('voxbench CLI (spawned)', () => {
  it('run with no target benchmarks the built-in server on the bundled samples and writes the report', async () => {
    const out = await tempDir();
    const result = await runNode([CLI, 'run', '--pace', '8x', '--profile', 'concurrent', '--concurrency', '3', '--output-dir', out]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\(built-in server\)/);
    assert.match(result.stdout, /^concurrent@3: 6 sessions · 6 completed · 0 failed · 0 incomplete · error rate 0\.00%$/m);
    assert.match(result.stdout, /^ttft_ms +ms +6 /m);
    assert.match(result.stdout, /^Metric definitions: --definitions, or voxbench metrics$/m);
    assert.match(
      result.stdout,
      /^At 3 concurrent sessions: ttft_ms p50 \d+(\.\d)? ms, p95 \d+(\.\d)? ms; corpus WER 0\.00%; 0 of 6 sessions failed\.\n/,
      'the answer leads',
    );
    assert.match(
      result.stdout,
      new RegExp(`^Wrote: ${join(out, 'report.json')}, ${join(out, 'report.html')}, ${join(out, 'sessions.jsonl')}$`, 'm'),
      'the page by default',
    );
    assert.doesNotMatch(result.stdout, /No page written/);
    assert.match(
      result.stderr,
      /^target ws:\/\/127\.0\.0\.1:\d+\/v1\/realtime \(built-in server\) · model \S+ · data bundled samples · output /,
      'the run header comes first on stderr',
    );
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    assert.equal(report.schema, 'voxbench.report');
    assert.equal(report.version, 3);
    assert.equal(report.sessionLog, 'sessions.jsonl', 'the timelines are in the session log it names');
    assert.equal(report.config.pace, '8x');
    assert.equal(report.dataset.count, 6);
    assert.match(report.dataset.fingerprint, /^sha256:[0-9a-f]{64}$/);
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.equal(session.timeline, undefined, 'report.json keeps no timeline');
    const logged = (await readSessionLog(out)).find((entry) => entry.record.index === session.index)!;
    assert.equal(logged.record.timeline.sent.find((f) => f.kind === 'audio')!.audioStartMs, 0);
    assert.ok(session.metrics.inputs[0]!.ttft_ms! > 0);
  });

  it('run --workers auto runs the sessions on one worker thread per core, with the progress callbacks left on the main thread', async () => {
    const out = await tempDir();
    const result = await runNode([
      CLI,
      'run',
      '--target',
      target,
      '--model',
      model,
      '--pace',
      '8x',
      '--workers',
      'auto',
      '--max-sessions',
      '4',
      '--output-dir',
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    assert.equal(report.config.workers, availableParallelism());
    assert.equal(report.benchmarks[0]!.summary.sessions.completed, 4);
  });

  it('a server that is down: every session fails, the report is still written, exit code 3', async () => {
    const out = await tempDir();
    const result = await runNode([CLI, 'run', '--target', 'ws://127.0.0.1:9/v1/realtime', '--model', 'm', '--max-sessions', '2', '--output-dir', out]);
    assert.equal(result.code, 3);
    assert.match(result.stdout, /^failed ×2: connect_refused at connect: connection refused by 127\.0\.0\.1:9 \(is the server running\?\)$/m);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    assert.equal(report.benchmarks[0]!.summary.sessions.failed, 2);
  });

  // Each refusal's exit code and one line come from the CLI: spawned for those the CLI words itself (a flag's parser,
  // the run command's checks, the sending flags a dialect refuses, which the CLI passes only when given) and for one
  // of each kind run() words (OptionsError: --target http://, DatasetError).
  for (const [args, message] of [
    [['--pace', 'fast'], 'voxbench: error: --pace takes realtime, Nx (e.g. 2x) or none, got "fast"'],
    [['--target', 'http://x/v1/realtime', '--model', 'm'], 'voxbench: error: --target must be a ws:// or wss:// URL for --protocol vllm, got http://'],
    [['--data', '/nonexistent/dir'], 'voxbench: error: /nonexistent/dir: cannot read the dataset (ENOENT)'],
    [
      ['--concurrency', 'many'],
      "voxbench: error: option '--concurrency <n>' argument 'many' is invalid. expected whole numbers from 1 up, separated by commas. (run with --help for usage)",
    ],
    [
      ['--profile', 'concurrent', '--concurrency', '1,2'],
      'voxbench: error: --concurrency takes one level with --profile concurrent; lists are for --profile sweep',
    ],
    [
      ['--profile', 'concurrent', '--rate', '5'],
      'voxbench: error: --rate does not apply with --profile concurrent: it is arrivals per second, for --profile constant, poisson or capacity --capacity-by rate; sessions open at once are --concurrency',
    ],
    [
      ['--concurrency', '2', '--rate', '5'],
      'voxbench: error: --concurrency and --rate without --profile: give --profile concurrent (sessions open at once) or constant/poisson (arrivals per second)',
    ],
    [
      ['--warmup', '10', '--max-sessions', '2'],
      'voxbench: error: --warmup and --cooldown leave out every one of --max-sessions 2: nothing would be measured; leave out fewer sessions or run more',
    ],
    [['--profile', 'capacity'], 'voxbench: error: --profile capacity needs at least one --slo to search against, e.g. --slo "p95(ttft_ms)<800"'],
    // Sending flags a dialect cannot apply are refused, not silently ignored.
    [
      ['--protocol', 'vllm-transcriptions', '--pace', '10x'],
      'voxbench: error: --pace times a stream, and --protocol vllm-transcriptions sends each input in one request: leave --pace out',
    ],
    [
      ['--protocol', 'openai-speech', '--chunk-ms', '50'],
      'voxbench: error: --chunk-ms sizes the audio messages of a stream, and --protocol openai-speech sends each input in one request: leave --chunk-ms out',
    ],
    [
      ['--protocol', 'elevenlabs', '--text-rate', '30', '--chunk-ms', '50'],
      'voxbench: error: --chunk-ms sizes the audio messages a client sends, and --protocol elevenlabs sends text: leave --chunk-ms out',
    ],
  ] as const) {
    it(`rejects ${args.join(' ')} with one clear line and exit code 2`, async () => {
      const result = await runNode([CLI, 'run', ...args]);
      assert.equal(result.code, 2);
      assert.equal(result.stderr, `${message}\n`, 'exactly one line, no stack trace');
    });
  }

  // The other refusals run() words itself, checked in-process (a spawn costs more), in the words the CLI prints.
  for (const [args, options, message] of [
    [
      ['--target', 'ws://localhost:1/v1/realtime'],
      { target: 'ws://localhost:1/v1/realtime' },
      '--model is required with --target: name the model the server serves',
    ],
    [
      ['--target', 'ws://localhost:1/v1/realtime#x', '--model', 'm'],
      { target: 'ws://localhost:1/v1/realtime#x', model: 'm' },
      '--target cannot have a #fragment (#x); WebSocket URLs do not carry one',
    ],
    [
      ['--protocol', 'vllm-omni-speech-ws', '--pace', '10x'],
      { protocol: 'vllm-omni-speech-ws', pace: { kind: 'realtime', speed: 10 } },
      '--pace times a stream, and --protocol vllm-omni-speech-ws is given each text whole: leave --pace out, or stream the text with --text-rate',
    ],
  ] as const satisfies ReadonlyArray<readonly [readonly string[], RunOptions, string]>) {
    it(`rejects ${args.join(' ')}: run() says why in the flags' words`, async () => {
      const { run } = await import('../src/run/run.js');
      await assert.rejects(run(options), (err: Error) => {
        assert.ok(err instanceof OptionsError, err.message);
        assert.equal(flagMessage(err), message);
        return true;
      });
    });
  }

  it('answers bad input to serve and report with one line and exit code 2', async () => {
    const port = await runNode([CLI, 'serve', '--port', '99999']);
    assert.equal(port.code, 2);
    assert.match(
      port.stderr,
      /^voxbench: error: option '--port <port>' argument '99999' is invalid\. expected a port from 0 to 65535\. \(run with --help for usage\)\n$/,
    );
    const missing = await runNode([CLI, 'report', 'render', '/nonexistent/run']);
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /^voxbench: error: \/nonexistent\/run\/report\.json: cannot read the report \(ENOENT\); give a report\.json or a run folder$/m,
    );
    const out = await tempDir();
    await runNode([CLI, 'run', '--target', target, '--model', model, '--pace', '8x', '--max-sessions', '1', '--output-dir', out]);
    const level = await runNode([CLI, 'report', 'compare', out, out, '--level', 'nope']);
    assert.equal(level.code, 2);
    assert.match(level.stderr, /^voxbench: error: --level nope: not a level of both reports \(levels: synchronous\)$/m);
  });

  it('metrics lists every metric with its unit and events', async () => {
    const result = await runNode([CLI, 'metrics']);
    assert.equal(result.code, 0);
    assert.match(
      result.stdout,
      /^ttft_ms \[ms, per turn\]\n {2}first audio chunk of the turn sent \(streams\), or its request started \(HTTP\) → first non-empty transcript text received$/m,
    );
  });

  it('serve starts the simulated server and reports where it listens', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const line = await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(String(d))));
    child.kill('SIGTERM');
    assert.match(
      line,
      /^voxbench simulated server listening on ws:\/\/127\.0\.0\.1:\d+\/v1\/realtime and http:\/\/127\.0\.0\.1:\d+\/v1\/audio\/transcriptions \(models: mistralai\/Voxtral-Mini-4B-Realtime-2602, gpt-4o-transcribe, gpt-4o-mini-transcribe, whisper-1, gpt-4o-transcribe-diarize, openai\/whisper-large-v3, Qwen\/Qwen3-TTS-12Hz-1.7B-CustomVoice, /,
    );
  });

  it('serve --pid-file names the process to stop once it listens, through a shell as npx starts it, and removes the file when stopped', async () => {
    const { spawn } = await import('node:child_process');
    const pidFile = join(await tempDir(), 'serve.pid');
    // As `npx voxbench serve &` runs it: a shell between the caller and the server, so the caller's own child is not the server.
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${CLI}" serve --port 0 --quiet --pid-file "${pidFile}"; echo done`], { stdio: 'ignore' });
    let shellExited = false;
    const shellEnded = new Promise((resolve) => shell.once('exit', resolve)).then(() => (shellExited = true));
    let pid = 0;
    while (!(pid > 0)) {
      assert.equal(shellExited, false, 'the server ended before writing its pid file');
      await new Promise((resolve) => setTimeout(resolve, 50));
      pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    }
    assert.notEqual(pid, shell.pid);
    process.kill(pid, 'SIGTERM');
    await shellEnded;
    await assert.rejects(readFile(pidFile), { code: 'ENOENT' });
  });
});
