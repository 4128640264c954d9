import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DatasetError } from '../src/data/errors.js';
import { loadDataset } from '../src/data/load.js';
import { AUDIO_FIXTURES, toneWav, writeArrowShard, writeParquetShard, type AudioCell, type Columns } from './data-fixtures.js';
import { tempDir } from './helpers.js';

const flac = await readFile(join(AUDIO_FIXTURES, 'tone.flac'));
const cell = (bytes: Uint8Array | null, path: string | null): AudioCell => ({ bytes, path });

/** Rows as a Hugging Face audio dataset has them: four train rows, three test rows, one test row with no audio. */
const TRAIN_AUDIO = [cell(toneWav(0.5), 't0.wav'), cell(flac, 't1.flac'), cell(toneWav(0.25, { hz: 300 }), 't2.wav'), cell(toneWav(1), 't3.wav')];
const TRAIN: Columns = {
  id: ['t0', 't1', 't2', 't3'],
  audio: TRAIN_AUDIO,
  text: ['zero', 'one', 'two', 'three'],
};
const TEST: Columns = {
  id: ['x0', 'x1', 'x2'],
  audio: [cell(toneWav(0.5, { hz: 500 }), 'x0.wav'), cell(null, 'not-here.wav'), cell(flac, null)],
  text: ['ex zero', 'ex one', 'ex two'],
};
const slice = (columns: Columns, start: number, end: number): Columns =>
  Object.fromEntries<Columns[string]>(Object.entries(columns).map(([k, v]) => [k, v.slice(start, end)]));

/** The layout of a dataset downloaded from the Hub: data/<split>-0000N-of-0000M.parquet, two-row row groups. */
async function parquetDataset(): Promise<string> {
  const root = await tempDir();
  await mkdir(join(root, 'data'));
  writeParquetShard(join(root, 'data', 'train-00000-of-00001.parquet'), TRAIN);
  writeParquetShard(join(root, 'data', 'test-00000-of-00002.parquet'), slice(TEST, 0, 2), { gzip: true });
  writeParquetShard(join(root, 'data', 'test-00001-of-00002.parquet'), slice(TEST, 2, 3));
  await writeFile(join(root, 'README.md'), '---\ndataset_info: ...\n---\n');
  return root;
}

/** The layout `DatasetDict.save_to_disk` writes: dataset_dict.json, then per split state.json, dataset_info.json and data-*.arrow. */
async function arrowDataset(): Promise<string> {
  const root = await tempDir();
  await writeFile(join(root, 'dataset_dict.json'), JSON.stringify({ splits: ['train', 'test'] }));
  for (const [split, columns] of [
    ['train', TRAIN],
    ['test', TEST],
  ] as const) {
    const dir = join(root, split);
    await mkdir(dir);
    writeArrowShard(join(dir, 'data-00000-of-00001.arrow'), columns);
    await writeFile(join(dir, 'state.json'), JSON.stringify({ _data_files: [{ filename: 'data-00000-of-00001.arrow' }], _split: null }));
    await writeFile(join(dir, 'dataset_info.json'), JSON.stringify({ features: { audio: { _type: 'Audio' } } }));
  }
  return root;
}

const summaryOf = async (path: string, options = {}) => {
  const dataset = await loadDataset(path, options);
  return {
    samples: dataset.samples.map((s) => [s.id, s.split, s.text, s.audio.samples.length]),
    problems: dataset.problems.map((p) => [p.file.slice(path.length + 1), p.row, p.reason]),
    fingerprint: dataset.fingerprint,
  };
};

describe('Hugging Face Parquet shards', () => {
  it('reads the audio struct, text and split of every shard, row group by row group', async () => {
    const root = await parquetDataset();
    const { samples, problems } = await summaryOf(root);
    assert.deepEqual(samples, [
      ['x0', 'test', 'ex zero', 8000],
      ['x2', 'test', 'ex two', 4410],
      ['t0', 'train', 'zero', 8000],
      ['t1', 'train', 'one', 4410],
      ['t2', 'train', 'two', 4000],
      ['t3', 'train', 'three', 16_000],
    ]);
    assert.deepEqual(problems, [
      ['data/test-00000-of-00002.parquet', 1, 'the audio cell holds no bytes, and its path not-here.wav is not a file next to the shard'],
    ]);
    assert.equal((await loadDataset(root)).kind, 'parquet');
  });

  it('selects a split, and names the splits there are when it is missing', async () => {
    const root = await parquetDataset();
    const dataset = await loadDataset(root, { split: 'train' });
    assert.deepEqual(
      dataset.samples.map((s) => s.id),
      ['t0', 't1', 't2', 't3'],
    );
    assert.equal(dataset.filteredOut, 3);
    await assert.rejects(loadDataset(root, { split: 'validation' }), { message: `${root}: no split "validation"; it has test, train` });
  });

  it('reads a single shard, finds common column names and numbers rows without an id column', async () => {
    const root = await tempDir();
    const file = join(root, 'clips.parquet');
    writeParquetShard(file, { sentence: ['hello', 'world'], audio: TRAIN_AUDIO.slice(0, 2) });
    const dataset = await loadDataset(file);
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.split, s.text]),
      [
        ['default-0', 'default', 'hello'],
        ['default-1', 'default', 'world'],
      ],
    );
  });

  it('maps columns, and names the columns there are when a mapped one is missing', async () => {
    const root = await tempDir();
    const file = join(root, 'data.parquet');
    writeParquetShard(file, { key: ['k0'], wave: TRAIN_AUDIO.slice(0, 1), raw_text: ['Hello'], normalized_text: ['hello'] });
    const dataset = await loadDataset(file, { columns: { id: 'key', audio: 'wave', text: 'raw_text' } });
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.text]),
      [['k0', 'Hello']],
    );
    await assert.rejects(loadDataset(file, { columns: { text: 'transcript' } }), (err: unknown) => {
      assert.ok(err instanceof DatasetError);
      assert.equal(err.message, `${file}: no text column "transcript" (columns: key, wave, raw_text, normalized_text); name the right one with --text-column`);
      return true;
    });
  });

  it('reports a file that is not Parquet and reads the other shards', async () => {
    const root = await parquetDataset();
    await writeFile(join(root, 'data', 'train-00001-of-00001.parquet'), 'not parquet at all');
    const { samples, problems } = await summaryOf(root, { split: 'train' });
    assert.equal(samples.length, 4);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]![2], 'not a Parquet file: it does not begin and end with the marker PAR1');
  });

  it('names a file that looks like Parquet (PAR1 at both ends) but whose footer is garbage, in one line, not a JavaScript error', async () => {
    const root = await parquetDataset();
    const footer = Buffer.alloc(4);
    footer.writeInt32LE(100);
    for (const [name, body] of [
      ['zeros', Buffer.alloc(200)],
      ['fields', Buffer.from('\x15\x00\x15\x00'.repeat(50), 'latin1')],
    ] as const)
      await writeFile(join(root, 'data', `train-${name}.parquet`), Buffer.concat([Buffer.from('PAR1'), body, footer, Buffer.from('PAR1')]));
    const { samples, problems } = await summaryOf(root, { split: 'train' });
    assert.equal(samples.length, 4);
    assert.deepEqual(
      problems.map((p) => p[2]),
      [0, 1].map(() => 'a damaged Parquet file: its footer (the schema and row groups) cannot be read: the bytes are not what Parquet describes'),
    );
  });
});

describe('Hugging Face save_to_disk folders (Arrow)', () => {
  it('reads a DatasetDict split by split, with the same samples and fingerprint as the Parquet shards', async () => {
    const arrow = await summaryOf(await arrowDataset(), { split: 'test' });
    const parquet = await summaryOf(await parquetDataset(), { split: 'test' });
    assert.deepEqual(arrow.samples, parquet.samples);
    assert.equal(arrow.fingerprint, parquet.fingerprint);
    assert.deepEqual(arrow.problems, [
      ['test/data-00000-of-00001.arrow', 1, 'the audio cell holds no bytes, and its path not-here.wav is not a file next to the shard'],
    ]);
  });

  it('reads one saved Dataset folder, with its split from state.json, and a lone .arrow file', async () => {
    const root = await tempDir();
    writeArrowShard(join(root, 'data-00000-of-00002.arrow'), slice(TRAIN, 0, 3), { batchSize: 2 });
    writeArrowShard(join(root, 'data-00001-of-00002.arrow'), slice(TRAIN, 3, 4));
    await writeFile(
      join(root, 'state.json'),
      JSON.stringify({
        _data_files: [{ filename: 'data-00000-of-00002.arrow' }, { filename: 'data-00001-of-00002.arrow' }],
        _split: 'train',
      }),
    );
    const dataset = await loadDataset(root);
    assert.equal(dataset.kind, 'arrow');
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.split]),
      [
        ['t0', 'train'],
        ['t1', 'train'],
        ['t2', 'train'],
        ['t3', 'train'],
      ],
    );
    const single = await loadDataset(join(root, 'data-00000-of-00002.arrow'));
    assert.deepEqual(
      single.samples.map((s) => [s.id, s.split]),
      [
        ['t0', 'default'],
        ['t1', 'default'],
        ['t2', 'default'],
      ],
    );
  });

  it('picks rows from the right batches when shuffled and cut', async () => {
    const root = await arrowDataset();
    const all = await loadDataset(root, { split: 'train', seed: 7 });
    const some = await loadDataset(root, { split: 'train', seed: 7, maxSamples: 2 });
    assert.deepEqual(
      some.samples.map((s) => s.id),
      all.samples.slice(0, 2).map((s) => s.id),
    );
    const byId = new Map(all.samples.map((s) => [s.id, s.audio.samples.length]));
    for (const s of some.samples) assert.equal(s.audio.samples.length, byId.get(s.id));
  });
});
