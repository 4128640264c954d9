import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { bundlePage, PAGE_ENTRY, PAGE_SCRIPT } from '../scripts/bundle-page.js';
import { renderPage } from '../src/report/html/page.js';
import { tempDir } from './helpers.js';

const HTML_SOURCES = fileURLToPath(new URL('../../src/report/html/', import.meta.url));

/** The page's inline scripts, the JSON data block aside. */
function inlineScripts(page: string): string[] {
  return [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
}

/** Bundles page modules written to a fresh directory, `main.js` first. */
async function bundleOf(modules: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  for (const [name, text] of Object.entries(modules)) await writeFile(join(dir, name), text);
  return bundlePage(pathToFileURL(join(dir, 'main.js')));
}

describe('the page script', () => {
  it('is the built bundle of the compiled page modules, inlined as it is', async () => {
    const built = await readFile(PAGE_SCRIPT, 'utf8');
    // A bundle built before the page modules last compiled would differ: run `npm run build`.
    assert.equal(built, bundlePage(PAGE_ENTRY));
    const page = renderPage({ title: 't', heading: 'h', subtitle: 's', sections: [] });
    assert.equal(inlineScripts(page).at(-1), built.replace(/<\/script/gi, '<\\/script'));
  });

  it('is never a function shipped through Function.prototype.toString', async () => {
    const sources = (await readdir(HTML_SOURCES, { recursive: true })).filter((name) => name.endsWith('.ts'));
    assert.ok(sources.includes('page.ts') && sources.includes(join('page', 'main.ts')), sources.join(', '));
    for (const name of sources) assert.doesNotMatch(await readFile(join(HTML_SOURCES, name), 'utf8'), /\.toString\(\)/, name);
  });

  it('runs each module once, after the modules it imports, sharing only what they export', async () => {
    const script = await bundleOf({
      'main.js': "import { twice } from './twice.js';\nimport { one } from './one.js';\nglobalThis.result = twice(one);\n",
      'twice.js': "import { one } from './one.js';\nconst local = 2;\nexport function twice(n) {\n    return n * local * one;\n}\n",
      'one.js': 'const local = 1;\nexport const one = local;\n//# sourceMappingURL=one.js.map\n',
    });
    const scope: { result?: number } = {};
    runInNewContext(script, scope);
    assert.equal(scope.result, 2);
    assert.equal(script.match(/const local = 1/g)?.length, 1);
    assert.doesNotMatch(script, /sourceMappingURL|^import|^export/m);
  });

  it('refuses what its bundle cannot honour', async () => {
    await assert.rejects(bundleOf({ 'main.js': "import { a as b } from './a.js';\n", 'a.js': 'export const a = 1;\n' }), /cannot read/);
    await assert.rejects(bundleOf({ 'main.js': "import { a } from '../a.js';\n" }), /cannot read/);
    await assert.rejects(bundleOf({ 'main.js': "import { a } from './a.js';\n", 'a.js': 'const a = 1;\nexport { a };\n' }), /cannot read/);
    await assert.rejects(bundleOf({ 'main.js': "import { b } from './a.js';\n", 'a.js': 'export const a = 1;\n' }), /imports b, which a\.js does not export/);
    await assert.rejects(bundleOf({ 'main.js': "import { a } from './a.js';\n", 'a.js': "import { b } from './main.js';\nexport const a = 1;\n" }), /cycle/);
    await assert.rejects(
      bundleOf({
        'main.js': "import { a } from './a.js';\nimport { b } from './b.js';\n",
        'a.js': 'export const a = 1;\n',
        'b.js': 'export const a = 1;\nexport const b = 2;\n',
      }),
      /b\.js and a\.js both export a/,
    );
  });
});
