import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { profileOfFlags } from '../src/cli/load-flags.js';
import type { Report } from '../src/report/schema.js';
import { CLI, runNode, tempDir } from './helpers.js';

describe('load flags', () => {
  it('without --profile, the profile follows the load flags given', () => {
    assert.equal(profileOfFlags(undefined, new Set(), 1, 'concurrency'), 'synchronous');
    assert.equal(profileOfFlags(undefined, new Set(['concurrency']), 1, 'concurrency'), 'concurrent');
    assert.equal(profileOfFlags(undefined, new Set(['concurrency']), 3, 'concurrency'), 'sweep');
    assert.equal(profileOfFlags(undefined, new Set(['rate', 'maxOpen']), 1, 'concurrency'), 'constant');
    assert.equal(profileOfFlags(undefined, new Set(['rate', 'seed']), 1, 'concurrency'), 'poisson');
    assert.equal(profileOfFlags(undefined, new Set(['stages']), 1, 'concurrency'), 'stages');
    assert.equal(profileOfFlags(undefined, new Set(['rateStages', 'seed', 'maxOpen']), 1, 'concurrency'), 'rate-stages');
  });

  it('refuses a load flag the profile would ignore', () => {
    assert.throws(
      () => profileOfFlags('synchronous', new Set(['concurrency']), 1, 'concurrency'),
      /^UsageError: --concurrency does not apply with --profile synchronous: it is sessions open at once/,
    );
    assert.throws(() => profileOfFlags('sweep', new Set(['rate']), 1, 'concurrency'), /^UsageError: --rate does not apply with --profile sweep/);
    assert.throws(
      () => profileOfFlags('capacity', new Set(['rate']), 1, 'concurrency'),
      /^UsageError: --rate does not apply with --profile capacity --capacity-by concurrency/,
    );
    assert.throws(
      () => profileOfFlags(undefined, new Set(['seed']), 1, 'concurrency'),
      /^UsageError: --seed does not apply without --profile: it is the seed of Poisson arrivals/,
    );
    assert.throws(
      () => profileOfFlags(undefined, new Set(['concurrency', 'maxOpen']), 1, 'concurrency'),
      /^UsageError: --max-open does not apply without --profile/,
    );
    assert.equal(profileOfFlags('capacity', new Set(['rate', 'seed', 'maxOpen']), 1, 'rate'), 'capacity');
    assert.throws(() => profileOfFlags(undefined, new Set(['stages', 'rate']), 1, 'concurrency'), /^UsageError: --rate does not apply without --profile/);
    assert.throws(() => profileOfFlags(undefined, new Set(['stages', 'maxOpen']), 1, 'concurrency'), /^UsageError: --max-open does not apply/);
    assert.throws(() => profileOfFlags('concurrent', new Set(['stages']), 1, 'concurrency'), /^UsageError: --stages does not apply with --profile concurrent/);
  });

  it('run --concurrency 2 without --profile runs concurrency 2', async () => {
    const dir = await tempDir();
    const result = await runNode([CLI, 'run', '--concurrency', '2', '--max-sessions', '2', '--pace', '8x', '--json', '--output-dir', dir]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    assert.deepEqual(report.benchmarks[0]!.profile, { kind: 'concurrent', concurrency: 2 });
  });
});
