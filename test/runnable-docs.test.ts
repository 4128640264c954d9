import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { CLI, runNode, tempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A command of a runnable block: where it is, and its words after `npx voxbench`. */
interface Example {
  where: string;
  args: string[];
}

/**
 * Every command in the docs' fenced blocks marked runnable (```` ```sh runnable ````):
 * continuation lines joined, comments dropped, the words split as a shell would.
 */
function runnableExamples(): Example[] {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const examples: Example[] = [];
  for (const page of pages) {
    const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```\w+ .*\brunnable\b/.test(lines[i]!)) continue;
      let command = '';
      let first = 0;
      while (!lines[++i]!.startsWith('```')) {
        if (command === '') first = i + 1;
        command += lines[i]!.replace(/\\$/, ' ');
        if (lines[i]!.endsWith('\\')) continue;
        const words = shellWords(command);
        command = '';
        if (words.length === 0) continue;
        const where = `${page}:${first}`;
        assert.deepEqual(words.slice(0, 2), ['npx', 'voxbench'], `${where}: a runnable block holds voxbench commands only`);
        examples.push({ where, args: words.slice(2) });
      }
    }
  }
  return examples;
}

/** A line split into words as sh does for the docs' commands: quotes, and `#` starting a comment. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(#.*)|(\S+)/g)) {
    if (match[3] !== undefined) break;
    words.push(match[1] ?? match[2] ?? match[4]!);
  }
  return words;
}

/**
 * What keeps each example small (few sessions, a small capacity search), its output out of
 * the checkout, and a run starved by the rest of the suite from failing for want of CPU
 * rather than of the example (limits on connecting and on the session being ready).
 */
function caps(args: string[], outputDir: string): string[] {
  if (args[0] !== 'run') return [];
  return [
    '--max-sessions',
    '1',
    ...(args.includes('capacity') ? ['--capacity-max', '2'] : []),
    ...['--connect-timeout-ms', '60000', '--ready-timeout-ms', '60000'],
    ...['--output-dir', outputDir, '--quiet', '--no-cache'],
  ];
}

describe('runnable examples in the docs', () => {
  const examples = runnableExamples();

  it('are marked on every workload page and the README, and none names a server', () => {
    const pages = new Set(examples.map((e) => e.where.split(':')[0]));
    for (const page of ['README.md', 'docs/streaming-transcription.md', 'docs/batch-transcription.md', 'docs/speech-generation.md', 'docs/speech-to-speech.md'])
      assert.ok(pages.has(page), `${page} has a runnable example`);
    for (const { where, args } of examples) assert.ok(!args.includes('--target'), `${where}: a runnable example runs on the built-in server`);
  });

  it('run on the built-in server and exit 0, each with its own flags and caps on its size', async () => {
    // A few at a time: each starts its own built-in server, and a starved one would time out.
    const failures: string[] = [];
    // A command written on several pages runs once.
    const queue = [...new Map(examples.map((e) => [e.args.join('\0'), e])).values()];
    const lane = async (): Promise<void> => {
      for (let example = queue.shift(); example; example = queue.shift()) {
        const { where, args } = example;
        const result = await runNode([CLI, ...args, ...caps(args, join(await tempDir(), 'out'))]);
        if (result.code !== 0) failures.push(`${where}: npx voxbench ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      }
    };
    await Promise.all([lane(), lane(), lane()]);
    assert.deepEqual(failures, []);
  });
});

/** The docs' shell walk-throughs (```` ```sh script ````): where each is, and its lines. */
function scripts(): Array<{ where: string; script: string }> {
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : []))];
  return pages.flatMap((page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    return [...text.matchAll(/^```sh script\n([\s\S]*?)^```/gm)].map((match) => ({
      where: `${page}:${text.slice(0, match.index).split('\n').length}`,
      script: match[1]!,
    }));
  });
}

describe('shell walk-throughs in the docs', () => {
  it('run as written, in a folder of their own, every command exiting 0', async () => {
    const found = scripts();
    assert.ok(
      found.some((s) => s.where.startsWith('docs/diarization.md')),
      'the diarization walk-through is one',
    );
    for (const { where, script } of found) {
      // `npx voxbench` is this checkout's CLI, as npx resolves it in a clone; bash -e fails the script on any failing command.
      const body = script.replaceAll('npx voxbench', `"${process.execPath}" "${CLI}"`);
      const cwd = await tempDir();
      const child = spawn('bash', ['-ec', body], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise((resolve) => child.on('exit', resolve));
      // A script that failed midway leaves its background server running: stop it by its pid file.
      for (const file of readdirSync(cwd).filter((f) => f.endsWith('.pid'))) {
        try {
          process.kill(Number(readFileSync(join(cwd, file), 'utf8')));
        } catch {
          // already gone
        }
      }
      assert.equal(code, 0, `${where}: ${stderr}`);
    }
  });
});
