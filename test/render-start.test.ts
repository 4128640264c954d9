import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

/** The compiled library, next to this compiled test: dist/src. */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Every src/ module `from` loads at run time through static imports (type-only imports are erased from the .js), as paths relative to src/. */
async function loaded(from: string): Promise<Set<string>> {
  const seen = new Set<string>([from]);
  const queue = [from];
  for (let module = queue.shift(); module !== undefined; module = queue.shift()) {
    const text = await readFile(join(SRC, module), 'utf8');
    for (const [, spec] of text.matchAll(/^(?:import|export)\b[^'"]*?\bfrom\s+'(\.[^']+)'/gm)) {
      const next = relative(SRC, join(SRC, dirname(module), spec!));
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

describe("report render's start", () => {
  it('loads no dialect and no runner: only what reading a report and writing its outputs need (issue 38)', async () => {
    const modules = await loaded('cli/report-command.js');
    assert.ok(modules.has('report/recompute.js') && modules.has('report/outputs.js') && modules.has('metrics/normalizers/index.js'), [...modules].join(', '));
    assert.deepEqual(
      [...modules].filter((module) => /^(dialects|session|run|server|proxy)\//.test(module)),
      [],
    );
  });
});
