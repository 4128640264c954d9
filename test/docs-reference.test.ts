import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { referencePages, REGENERATE } from '../src/cli/reference-docs.js';

const ROOT = new URL('../../', import.meta.url);

describe('the generated reference pages match the code', () => {
  for (const [path, expected] of Object.entries(referencePages())) {
    it(`${path} is current`, async () => {
      const committed = await readFile(fileURLToPath(new URL(path, ROOT)), 'utf8').catch(() => '');
      // A line-by-line diff's first difference says what changed; the message says how to fix it.
      const ours = committed.split('\n');
      const theirs = expected.split('\n');
      const line = theirs.findIndex((text, i) => text !== ours[i]);
      assert.ok(committed === expected, `${path} is stale (first difference at line ${line + 1}); run \`${REGENERATE}\` and commit the result`);
    });
  }

  it('renders every command, metric, dialect and Prometheus name', () => {
    const pages = referencePages();
    for (const name of ['voxbench run', 'voxbench serve', 'voxbench proxy', 'voxbench report merge', 'voxbench dataset synth', 'voxbench cache clear']) {
      assert.ok(pages['docs/reference/cli.md']!.includes(`## \`${name}`), name);
    }
    assert.match(pages['docs/reference/metrics.md']!, /\| `ttft_ms` \| ms \|/);
    assert.match(pages['docs/reference/dialects.md']!, /\| `cartesia` \| `tts`/);
    assert.match(pages['docs/reference/prometheus.md']!, /\| `voxbench_latency_seconds` \| histogram \|/);
  });
});
