import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * Builds the HTML page's one classic script from the page modules (src/report/html/page/)
 * as tsc compiled them; `npm run build` runs it after tsc. No bundler is installed, so
 * the page modules keep to what this reads, and anything else is refused: they import
 * only each other (`import { a, b } from './x.js'`, no renaming) and export only
 * declarations, one name each (`export function a`, `export const b`). From the entry,
 * each module comes after those it imports and runs in a function of its own; what it
 * exports becomes a constant of the script, used by name by the modules importing it.
 */

/** The compiled page modules and the script built from them, inlined by `report/html/assets.ts`. */
export const PAGE_ENTRY = new URL('../src/report/html/page/main.js', import.meta.url);
export const PAGE_SCRIPT = new URL('../src/report/html/page-script.js', import.meta.url);

const IMPORT = /^import \{ (\w+(?:, \w+)*) \} from '(\.\/[\w-]+\.js)';$/;
const EXPORT = /^export ((?:async )?(?:function\*?|const|let|class) (\w+))/;
const SOURCE_MAP = /^\/\/# sourceMappingURL=.*$/;

interface PageModule {
  name: string;
  body: string[];
  exports: string[];
}

export function bundlePage(entry: URL): string {
  const modules: PageModule[] = [];
  const exported = new Map<string, PageModule>();
  const visiting = new Set<string>();
  const done = new Map<string, PageModule>();

  const visit = (url: URL): PageModule => {
    const name = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
    const seen = done.get(url.href);
    if (seen) return seen;
    if (visiting.has(url.href)) throw new Error(`page module ${name} is part of an import cycle`);
    visiting.add(url.href);
    const module: PageModule = { name, body: [], exports: [] };
    for (const line of readFileSync(url, 'utf8').split('\n')) {
      const imported = IMPORT.exec(line);
      const declared = EXPORT.exec(line);
      if (imported) {
        const from = visit(new URL(imported[2]!, url));
        for (const binding of imported[1]!.split(', ')) {
          if (!from.exports.includes(binding)) throw new Error(`${name} imports ${binding}, which ${from.name} does not export as a declaration`);
        }
      } else if (declared) {
        const other = exported.get(declared[2]!);
        if (other) throw new Error(`${name} and ${other.name} both export ${declared[2]}`);
        exported.set(declared[2]!, module);
        module.exports.push(declared[2]!);
        module.body.push(line.replace(EXPORT, '$1'));
      } else if (/^(import|export)\b/.test(line)) {
        throw new Error(`${name}: the page bundle cannot read "${line}"`);
      } else if (!SOURCE_MAP.test(line)) {
        module.body.push(line);
      }
    }
    visiting.delete(url.href);
    done.set(url.href, module);
    modules.push(module);
    return module;
  };
  visit(entry);

  const wrapped = modules.map(({ name, body, exports }) => {
    const binding = exports.length > 0 ? `const { ${exports.join(', ')} } = ` : '';
    const result = exports.length > 0 ? `return { ${exports.join(', ')} };\n` : '';
    return `// ${name}\n${binding}(() => {\n${body.join('\n').trim()}\n${result}})();\n`;
  });
  return `// voxbench's page script, built by scripts/bundle-page.ts from src/report/html/page/.\n(() => {\n'use strict';\n${wrapped.join('')}})();\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) writeFileSync(PAGE_SCRIPT, bundlePage(PAGE_ENTRY));
