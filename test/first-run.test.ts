import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `npm ci && npx voxbench run` runs `prepare` twice: once for `npm ci`, once when npx
 * installs the checkout into its cache. The second must find nothing to compile.
 */
describe('the first npx voxbench run after npm ci', () => {
  it('prepare builds in build mode, and a build leaves the project up to date for the next', async () => {
    const scripts = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.equal(scripts.prepare, 'npm run build');
    assert.match(scripts.build!, /^tsc -b tsconfig\.json && /, 'tsc -p would rebuild the whole program when nothing changed');
    // The test suite runs after `npm run build`: a dry build must see every output as newer than its sources.
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const { stdout } = await promisify(execFile)(process.execPath, [tsc, '-b', 'tsconfig.json', '--dry', '--verbose'], { cwd: ROOT });
    assert.match(stdout, /Project 'tsconfig\.json' is up to date because/, stdout);
  });
});
