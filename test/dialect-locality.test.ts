import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { PROTOCOLS } from '../src/dialects/index.js';

/** The sources, not the compiled copies: two levels above dist/test is the repository. */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** The one file besides a dialect's folder that may name it: none does today, the registry lists descriptors by import. */
const REGISTRY_FILES = ['dialects/index.ts'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

const files = sources(SRC).map((path) => ({ path: relative(SRC, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }));

/** The folder that declares a dialect: the one whose spec.ts names it. */
function folderOf(protocol: string): string | undefined {
  return files.find((f) => /^dialects\/[^/]+\/spec\.ts$/.test(f.path) && f.text.includes(`name: '${protocol}'`))?.path.replace(/spec\.ts$/, '');
}

describe('a dialect is one place', () => {
  it("reads the sources and finds every dialect's folder by its spec", () => {
    assert.ok(files.length > 100 && files.some((f) => f.path === 'dialects/index.ts'));
    assert.deepEqual(
      PROTOCOLS.filter((p) => folderOf(p) === undefined),
      [],
    );
  });

  it('names every dialect only in its folder (its spec, client and simulated side)', () => {
    const strays = PROTOCOLS.flatMap((protocol) => {
      const folder = folderOf(protocol)!;
      const quoted = new RegExp(`['"\`]${protocol}['"\`]`);
      return files.filter((f) => !f.path.startsWith(folder) && !REGISTRY_FILES.includes(f.path) && quoted.test(f.text)).map((f) => `${protocol} in ${f.path}`);
    });
    assert.deepEqual(strays, []);
  });
});
