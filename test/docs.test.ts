import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { METRICS } from '../src/metrics/catalog.js';
import { CLI, runNode } from './helpers.js';

const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

describe('README stays true', () => {
  it('starts with the two commands that work on a fresh machine', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    assert.match(firstBlock, /^npm ci && npx voxbench run /m);
    assert.match(firstBlock, /^npm ci && npm test /m);
  });

  it('lists every metric of the catalog', () => {
    for (const m of METRICS) assert.ok(readme.includes(`\`${m.name}\``), `${m.name} is missing from the README`);
  });

  for (const command of ['run', 'serve']) {
    it(`documents every flag of voxbench ${command}`, async () => {
      const help = (await runNode([CLI, command, '--help'])).stdout;
      const flags = [...help.matchAll(/^\s+(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]!).filter((f) => f !== '--help');
      assert.ok(flags.length > 5);
      for (const flag of flags) assert.ok(readme.includes(`\`${flag}`), `${flag} of ${command} is missing from the README`);
    });
  }
});
