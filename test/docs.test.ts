import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { PROTOCOLS } from '../src/dialects/index.js';
import { METRICS } from '../src/metrics/catalog.js';
import { cacheCommand } from '../src/cli/cache-command.js';
import { datasetCommand } from '../src/cli/dataset-command.js';
import { proxyCommand } from '../src/cli/proxy-command.js';
import { replayCommand } from '../src/cli/replay-command.js';
import { reportCommand } from '../src/cli/report-command.js';
import { runCommand } from '../src/cli/run-command.js';
import { serveCommand } from '../src/cli/serve-command.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): Promise<string> => readFile(join(ROOT, path), 'utf8');
const readme = await read('README.md');
/** The hand-written pages: docs/*.md, the generated reference/ left out. */
const guides = await Promise.all(
  (await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map(async (f) => ({ path: `docs/${f}`, text: await read(`docs/${f}`) })),
);
const reference = await Promise.all(
  (await readdir(join(ROOT, 'docs/reference'))).map(async (f) => ({ path: `docs/reference/${f}`, text: await read(`docs/reference/${f}`) })),
);
const guideText = guides.map((g) => g.text).join('\n');

const COMMANDS: Record<string, CommandUnknownOpts> = {};
for (const command of [runCommand, serveCommand, proxyCommand, replayCommand, reportCommand, datasetCommand, cacheCommand] as CommandUnknownOpts[]) {
  COMMANDS[command.name()] = command;
  for (const sub of command.commands) COMMANDS[`${command.name()} ${sub.name()}`] = sub;
}

/** Every `voxbench ...` command line in a page's sh code blocks, continuation lines joined. */
function commandLines(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sh[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, ' '));
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((l) => l.replace(/\s+#.*$/, ''))
    .filter((l) => /\bvoxbench (?!benchmarks)/.test(l));
}

/** GitHub's anchor for a heading. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('README stays short and true', () => {
  it('starts with the two commands that work on a fresh machine', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    assert.match(firstBlock, /^npm ci && npx voxbench run /m);
    assert.match(firstBlock, /^npm ci && npm test /m);
  });

  it('stays under 200 lines, with one example per workload', () => {
    assert.ok(readme.split('\n').length < 200, `README.md has ${readme.split('\n').length} lines`);
    for (const page of ['streaming-transcription', 'batch-transcription', 'speech-generation', 'speech-to-speech']) {
      assert.ok(readme.includes(`](docs/${page}.md)`), `README does not link docs/${page}.md`);
    }
  });
});

describe('the docs cover the code', () => {
  it('explain every metric of the catalog in a guide or workload page', () => {
    for (const m of METRICS) assert.ok(guideText.includes(`\`${m.name}\``), `${m.name} is explained in no page of docs/`);
  });

  for (const command of ['run', 'serve', 'proxy']) {
    it(`explain every flag of voxbench ${command} in a guide or workload page`, () => {
      const flags = COMMANDS[command]!.options.filter((o) => !o.hidden).map((o) => o.long!);
      assert.ok(flags.length > 5);
      for (const flag of flags) assert.ok(guideText.includes(`\`${flag}`), `${flag} of ${command} is explained in no page of docs/`);
    });
  }
});

describe('every command in the README and the docs is real', () => {
  for (const page of [{ path: 'README.md', text: readme }, ...guides]) {
    const lines = commandLines(page.text);
    if (lines.length === 0) continue;
    it(`${page.path}: each command, flag and --protocol exists`, () => {
      for (const line of lines) {
        const words = line.slice(line.indexOf('voxbench ') + 'voxbench '.length).split(/\s+/);
        const name = COMMANDS[`${words[0]} ${words[1]}`] ? `${words[0]} ${words[1]}` : words[0]!;
        const command = COMMANDS[name];
        assert.ok(command, `${page.path}: no command voxbench ${words[0]} (${line})`);
        const known = new Set(command.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
        for (const [i, word] of words.entries()) {
          if (!word.startsWith('-') || word === '-') continue;
          const flag = word.split('=')[0]!;
          assert.ok(known.has(flag), `${page.path}: voxbench ${name} has no ${flag} (${line})`);
          if (flag === '--protocol') assert.ok((PROTOCOLS as string[]).includes(words[i + 1]!), `${page.path}: no dialect ${words[i + 1]} (${line})`);
        }
      }
    });
  }
});

describe('links between pages resolve', () => {
  for (const page of [{ path: 'README.md', text: readme }, ...guides, ...reference]) {
    it(`${page.path}`, async () => {
      for (const [, target] of page.text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const path = file === '' ? page.path : normalize(relative(ROOT, join(ROOT, dirname(page.path), file)));
        assert.ok(existsSync(join(ROOT, path)), `${page.path} links ${target}, which does not exist`);
        if (anchor && path.endsWith('.md')) {
          const headings = [...(await read(path)).matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1]!));
          assert.ok(headings.includes(anchor), `${page.path} links ${target}, which has no heading #${anchor}`);
        }
      }
    });
  }
});
