import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { RUN_HELP_GROUPS } from '../src/cli/run-help-groups.js';
import { CLI, runNode } from './helpers.js';

const COMMANDS = [
  ['run'],
  ['serve'],
  ['proxy'],
  ['report', 'render'],
  ['report', 'merge'],
  ['report', 'compare'],
  ['dataset', 'inspect'],
  ['dataset', 'synth'],
];

/** Each command's help, printed once for all the tests that read it. */
const helps = new Map<string, ReturnType<typeof runNode>>();
const help = (command: string[]): ReturnType<typeof runNode> => {
  const key = command.join(' ');
  if (!helps.has(key)) helps.set(key, runNode([CLI, ...command, '--help']));
  return helps.get(key)!;
};

describe('voxbench --help', () => {
  for (const command of COMMANDS) {
    it(`${command.join(' ')} prints defaults as the README writes them`, async () => {
      const { code, stdout } = await help(command);
      assert.equal(code, 0);
      assert.doesNotMatch(stdout, /default: \[|default: "|choices: "/, 'no default or choice printed as JSON');
      // Piped, help fits 80 columns: wide flag terms stand on a line of their own and descriptions wrap.
      assert.deepEqual(
        stdout.split('\n').filter((line) => line.length > 80),
        [],
      );
    });
  }

  it('run --help groups every flag under a topic, in the order of the CLI reference', async () => {
    const { stdout } = await help(['run']);
    const headings = stdout.split('\n').filter((line) => /^[A-Z][^:]*:$/.test(line));
    assert.deepEqual(
      headings,
      [...RUN_HELP_GROUPS.map(([heading]) => `${heading}:`), 'Options:'],
      'every flag is in a group (only --help is left under Options)',
    );
    assert.match(stdout, /^Speakers:\n {2}--der-collar-ms <ms>/m);
  });

  it('marks required options and names the flags as the README does', async () => {
    assert.match((await help(['dataset', 'synth'])).stdout, /--out <dir>\s+folder to write NAME-LINE\.wav[^]*\(required\)/);
    const run = (await help(['run'])).stdout;
    assert.match(run, /--concurrency <n>[^]*?\(default: 1\)/);
    assert.match(run.replace(/\s+/g, ' '), /--outputs <list>[^]*?\(default: json,html\)/);
    assert.match(run.replace(/\s+/g, ' '), /--protocol <name> wire dialect \(choices: vllm, openai, openai-beta(, [a-z-]+)*; default: vllm\)/);
    assert.match(run, /--max-sample-duration <s>/);
    assert.doesNotMatch(run, /--max-duration/, 'the old name is accepted, not listed');
  });

  it('refuses --rate 0 and --rate 1,2 with one message', async () => {
    const messages = await Promise.all(['0', '1,2'].map(async (rate) => (await runNode([CLI, 'run', '--rate', rate])).stderr.trim()));
    for (const [i, rate] of ['0', '1,2'].entries()) {
      assert.equal(
        messages[i],
        `voxbench: error: option '--rate <r>' argument '${rate}' is invalid. expected one number above 0, e.g. 2.5. (run with --help for usage)`,
      );
    }
  });
});

describe('voxbench serve logging', () => {
  /** Starts `serve`, makes one good and one refused upgrade, stops it, and returns what it printed. */
  async function session(flags: string[]): Promise<string[]> {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    const url = await new Promise<string>((resolve) =>
      child.stdout.on('data', () => /listening on (\S+)/.exec(out) && resolve(/listening on (\S+)/.exec(out)![1]!)),
    );
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(url)
        .once('open', () => ws.close())
        .once('close', () => resolve())
        .once('error', reject);
    });
    await new Promise<void>((resolve) => new WebSocket(url.replace('/v1/realtime', '/nowhere')).once('error', () => resolve()));
    // Lines reach stdout before the client sees the upgrade answered; give the pipe a moment.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    return out.trimEnd().split('\n');
  }

  it('logs one line per connection, and a line when it stops', async () => {
    const lines = await session([]);
    assert.equal(lines.length, 4, lines.join('\n'));
    assert.match(lines[0]!, /^voxbench simulated server listening on /);
    assert.match(lines[1]!, /^connection from 127\.0\.0\.1:\d+: vllm$/);
    assert.match(lines[2]!, /^connection from 127\.0\.0\.1:\d+ refused: 404 Not Found: \/nowhere$/);
    assert.equal(lines[3], 'voxbench simulated server stopped (SIGTERM)');
  });

  it('with --quiet logs no connection', async () => {
    const lines = await session(['--quiet']);
    assert.equal(lines.length, 2, lines.join('\n'));
    assert.match(lines[0]!, /^voxbench simulated server listening on /);
    assert.equal(lines[1], 'voxbench simulated server stopped (SIGTERM)');
  });
});
