/**
 * Every installed package runs on the Node the project says it needs: `npm ci` warns
 * (EBADENGINE) about any whose `engines.node` leaves out the minimum in package.json,
 * and the README, CI and users install on that minimum.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import semver from 'semver';

const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(await readFile(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; version?: string }>;
};

describe('the Node version the project supports', () => {
  it('every package in the lock file accepts the minimum package.json states', () => {
    const minimum = semver.minVersion(manifest.engines.node);
    assert.ok(minimum, `package.json engines.node "${manifest.engines.node}" has a minimum`);
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return range === undefined || semver.satisfies(minimum, range) ? [] : [`${path || 'voxbench'}@${entry.version ?? '?'} needs node ${range}`];
    });
    assert.deepEqual(refusing, [], `these would warn EBADENGINE on Node ${minimum.version}`);
  });

  it('the README names the same minimum', async () => {
    const readme = await readFile(new URL('README.md', root), 'utf8');
    const stated = /Node (\d+\.\d+)/.exec(readme)?.[1];
    assert.equal(stated, semver.minVersion(manifest.engines.node)!.version.replace(/\.0$/, ''), 'README.md states the engines minimum');
  });
});
