import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { summarizeDataset } from '../src/data/dataset.js';
import { inspectDataset } from '../src/data/inspect.js';
import { loadDataset } from '../src/data/load.js';
import { languageMatches } from '../src/data/select.js';
import { toneWav } from './data-fixtures.js';
import { tempDir } from './helpers.js';

const LANGUAGES = ['en', 'en-US', 'fr', 'de'];

/** Twelve clips, s00 … s11, 0.3 s to 1.4 s long (0.1 s apart), languages cycling through LANGUAGES. */
async function twelveClips(): Promise<string> {
  const dir = await tempDir();
  const rows = [];
  for (let i = 0; i < 12; i++) {
    const id = `s${String(i).padStart(2, '0')}`;
    await writeFile(join(dir, `${id}.wav`), toneWav(0.3 + i * 0.1, { hz: 200 + 50 * i }));
    rows.push(JSON.stringify({ id, audio: `${id}.wav`, text: `clip ${i}`, language: LANGUAGES[i % 4], split: i < 8 ? 'train' : 'test' }));
  }
  await writeFile(join(dir, 'all.jsonl'), rows.join('\n'));
  return join(dir, 'all.jsonl');
}

const ids = async (path: string, options = {}): Promise<string[]> => (await loadDataset(path, options)).samples.map((s) => s.id);

describe('dataset selection', () => {
  it('keeps the dataset order without a seed, and a seeded shuffle gives the same order for the same seed', async () => {
    const file = await twelveClips();
    assert.deepEqual(
      await ids(file),
      Array.from({ length: 12 }, (_, i) => `s${String(i).padStart(2, '0')}`),
    );
    const first = await ids(file, { seed: 42 });
    assert.deepEqual(await ids(file, { seed: 42 }), first);
    assert.notDeepEqual(first, await ids(file));
    assert.notDeepEqual(first, await ids(file, { seed: 43 }));
    assert.deepEqual([...first].sort(), await ids(file));
  });

  it('takes maxSamples from the front of the shuffled order', async () => {
    const file = await twelveClips();
    const all = await ids(file, { seed: 3 });
    assert.deepEqual(await ids(file, { seed: 3, maxSamples: 5 }), all.slice(0, 5));
    assert.deepEqual(await ids(file, { maxSamples: 2 }), ['s00', 's01']);
  });

  it('reports problems only of candidates it needed to reach maxSamples, strict or not', async () => {
    const file = await twelveClips();
    await writeFile(join(file, '..', 's01.wav'), 'not audio');
    for (const strict of [false, true]) {
      const one = await loadDataset(file, { maxSamples: 1, strict });
      assert.deepEqual([one.samples.map((s) => s.id), one.problems], [['s00'], []]);
    }
    const two = await loadDataset(file, { maxSamples: 2 });
    assert.deepEqual([two.samples.map((s) => s.id), two.problems.map((p) => p.line)], [['s00', 's02'], [2]]);
    await assert.rejects(loadDataset(file, { maxSamples: 2, strict: true }), new RegExp(`^DatasetError: ${file} line 2: not a recognised audio file`));
  });

  it('keeps samples within the duration bounds, counting the rest as left out', async () => {
    const file = await twelveClips();
    const dataset = await loadDataset(file, { minDurationS: 0.5, maxDurationS: 0.8 });
    assert.deepEqual(
      dataset.samples.map((s) => s.id),
      ['s02', 's03', 's04', 's05'],
    );
    assert.equal(dataset.filteredOut, 8);
    assert.deepEqual(dataset.problems, []);
    await assert.rejects(loadDataset(file, { minDurationS: 2 }), { message: `${file}: no usable samples; 12 left out by the selection options` });
    await assert.rejects(loadDataset(file, { minDurationS: 2, maxDurationS: 1 }), /the minimum duration \(2 s\) is above the maximum \(1 s\)/);
  });

  it('filters by language: a bare code matches its regional variants', async () => {
    const file = await twelveClips();
    assert.deepEqual(await ids(file, { language: 'en' }), ['s00', 's01', 's04', 's05', 's08', 's09']);
    assert.deepEqual(await ids(file, { language: 'en-us' }), ['s01', 's05', 's09']);
    assert.deepEqual(await ids(file, { language: 'fr', split: 'test' }), ['s10']);
    assert.ok(languageMatches('pt_BR', 'pt') && !languageMatches('pt', 'pt-BR') && !languageMatches(undefined, 'en'));
  });

  it('summarizes count, audio, rates, splits and languages; inspection agrees without holding audio', async () => {
    const file = await twelveClips();
    const dataset = await loadDataset(file, { maxSamples: 6 });
    const summary = summarizeDataset(dataset);
    assert.deepEqual(
      { ...summary, totalAudioS: Number(summary.totalAudioS.toFixed(6)), shortestS: summary.shortestS, longestS: summary.longestS },
      {
        root: file,
        kind: 'jsonl',
        fingerprint: dataset.fingerprint,
        count: 6,
        skipped: 0,
        filteredOut: 6,
        totalAudioS: 3.3,
        shortestS: 0.3,
        longestS: 0.8,
        sampleRatesHz: [16_000],
        splits: { train: 6 },
        languages: { de: 1, en: 2, 'en-US': 2, fr: 1 },
        withReference: 6,
        withWordTimings: 0,
      },
    );
    const inspection = await inspectDataset(file, { maxSamples: 6 });
    assert.deepEqual(inspection.summary, summary);
    assert.deepEqual(inspection.problems, []);
  });

  it('fingerprints the content: stable across loads, changed by a transcript edit', async () => {
    const file = await twelveClips();
    const before = (await loadDataset(file)).fingerprint;
    assert.match(before, /^sha256:[0-9a-f]{64}$/);
    assert.equal((await loadDataset(file)).fingerprint, before);
    const dir = join(file, '..');
    await writeFile(join(dir, 's00.txt'), 'unused: manifests carry their own text');
    assert.equal((await loadDataset(file)).fingerprint, before);
    const { readFile } = await import('node:fs/promises');
    await writeFile(file, (await readFile(file, 'utf8')).replace('clip 0', 'clip zero'));
    assert.notEqual((await loadDataset(file)).fingerprint, before);
  });
});
