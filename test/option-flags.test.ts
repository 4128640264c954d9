import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { OptionsError, option, optionsError } from '../src/config/errors.js';
import { resolveSettings } from '../src/config/settings.js';
import { flagMessage, flagOf } from '../src/cli/option-flags.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

describe('options errors', () => {
  it('name options as RunOptions does for library callers, and as flags for the CLI', () => {
    assert.throws(
      () => resolveSettings({ maxSessions: 0 }),
      (err: Error) => {
        assert.ok(err instanceof OptionsError);
        assert.equal(err.message, 'maxSessions must be a positive integer, got 0');
        assert.deepEqual(err.options, ['maxSessions']);
        assert.equal(flagMessage(err), '--max-sessions must be a positive integer, got 0');
        return true;
      },
    );
    const err = optionsError`${option('sweep')} needs ${option('a list of levels', 'sweep.levels')}, e.g. 1,2,4,8`;
    assert.equal(err.message, 'sweep needs a list of levels, e.g. 1,2,4,8');
    assert.equal(flagMessage(err), '--profile sweep needs --concurrency with a list of levels, e.g. 1,2,4,8');
  });

  it('have a flag for every option the library names', async () => {
    const keys = new Set<string>();
    for (const folder of ['config', 'run']) {
      for (const file of (await readdir(join(SRC, folder))).filter((name) => name.endsWith('.ts'))) {
        const text = await readFile(join(SRC, folder, file), 'utf8');
        for (const [, path, key] of text.matchAll(/\boption\('([^']+)'(?:, '([^']+)')?\)/g)) keys.add(key ?? path!);
      }
    }
    assert.ok(keys.size > 40, [...keys].join(', '));
    assert.deepEqual(
      [...keys].filter((key) => flagOf(key) === undefined),
      [],
    );
  });
});
