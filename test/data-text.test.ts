import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { DatasetError } from '../src/data/errors.js';
import { loadFolderDataset } from '../src/data/load.js';
import { loadTextDataset } from '../src/data/text.js';
import { writeArrowShard, writeParquetShard } from './data-fixtures.js';
import { tempDir } from './helpers.js';

describe('text datasets (prompts for speech generation)', () => {
  it('reads a text file, one prompt per non-blank line, ids by line', async () => {
    const dir = await tempDir();
    const file = join(dir, 'prompts.txt');
    await writeFile(file, 'Hello there.\n\n  Second prompt  \r\nThird\n');
    const dataset = await loadTextDataset(file);
    assert.equal(dataset.kind, 'text');
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.text]),
      [
        ['line-1', 'Hello there.'],
        ['line-3', 'Second prompt'],
        ['line-4', 'Third'],
      ],
    );
    assert.ok(dataset.samples.every((s) => s.kind === 'text' && s.split === 'default'));
    assert.match(dataset.fingerprint, /^sha256:[0-9a-f]{64}$/);
  });

  it('reads a text file saved as UTF-16 (little-endian, with its mark) or UTF-8 with a mark, and refuses big-endian in one line', async () => {
    const dir = await tempDir();
    const text = '\ufeffCafé one\r\nsecond\n';
    const files = { le: Buffer.from(text, 'utf16le'), utf8: Buffer.from(text, 'utf8'), be: Buffer.from(text, 'utf16le').swap16() };
    for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, `${name}.txt`), bytes);
    for (const name of ['le', 'utf8'])
      assert.deepEqual(
        (await loadTextDataset(join(dir, `${name}.txt`))).samples.map((s) => s.text),
        ['Café one', 'second'],
        name,
      );
    await assert.rejects(
      loadTextDataset(join(dir, 'be.txt')),
      new DatasetError(`${join(dir, 'be.txt')}: the text file is UTF-16 big-endian; save it as UTF-8`),
    );
  });

  it('reads JSONL with id, text, voice, language and split, and names each bad row by its line', async () => {
    const dir = await tempDir();
    const file = join(dir, 'prompts.jsonl');
    await writeFile(
      file,
      [
        JSON.stringify({ id: 'a', text: 'Good morning.', voice: 'ryan', language: 'en', split: 'test' }),
        '{"id": "b", "text": ',
        JSON.stringify({ id: 'c' }),
        JSON.stringify({ id: 'd', text: 'Fine', voice: 7 }),
        JSON.stringify({ id: 'a', text: 'again' }),
        JSON.stringify({ text: 'No id here' }),
      ].join('\n'),
    );
    const dataset = await loadTextDataset(file);
    assert.deepEqual(dataset.samples, [
      { kind: 'text', id: 'a', split: 'test', path: `${file} line 1`, text: 'Good morning.', voice: 'ryan', language: 'en' },
      { kind: 'text', id: 'line-6', split: 'default', path: `${file} line 6`, text: 'No id here' },
    ]);
    assert.deepEqual(
      dataset.problems.map((p) => [p.line, p.reason.slice(0, 30)]),
      [
        [2, 'not valid JSON (Unexpected end'],
        [3, 'no text to speak: give the row'],
        [4, '"voice" (the voice) must be a '],
        [5, 'duplicate sample id "a" (first'],
      ],
    );
    await assert.rejects(
      loadTextDataset(file, { strict: true }),
      (err: Error) => err instanceof DatasetError && /prompts\.jsonl line 2: not valid JSON/.test(err.message),
    );
  });

  it('reads the text column of Parquet and Arrow tables that have no audio, and refuses a table without one', async () => {
    const dir = await tempDir();
    const parquet = join(dir, 'train-00000-of-00001.parquet');
    writeParquetShard(parquet, { id: ['p0', 'p1', 'p2'], sentence: ['One.', null, 'Three.'] });
    const fromParquet = await loadTextDataset(parquet);
    assert.deepEqual(
      fromParquet.samples.map((s) => [s.id, s.split, s.text]),
      [
        ['p0', 'train', 'One.'],
        ['p2', 'train', 'Three.'],
      ],
    );
    assert.deepEqual(
      fromParquet.problems.map((p) => [p.row, p.reason.slice(0, 17)]),
      [[1, 'no text to speak:']],
    );
    const arrow = join(dir, 'data.arrow');
    writeArrowShard(arrow, { text: ['Alpha', 'Beta'] });
    assert.deepEqual(
      (await loadTextDataset(arrow)).samples.map((s) => [s.id, s.text]),
      [
        ['default-0', 'Alpha'],
        ['default-1', 'Beta'],
      ],
    );
    const bare = join(dir, 'bare.parquet');
    writeParquetShard(bare, { id: ['x'] });
    await assert.rejects(loadTextDataset(bare), /bare\.parquet: no text column \(columns: id\); name the one holding the prompts with --text-column/);
  });

  it("makes a transcription dataset's references its prompts, reading no audio", async () => {
    const prompts = await loadTextDataset(BUNDLED_SAMPLES_DIR);
    const recordings = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
    assert.deepEqual(
      prompts.samples.map((s) => [s.id, s.text]),
      recordings.samples.map((s) => [s.id, s.text]),
    );
  });

  it('applies split, seed and max samples, and refuses duration bounds and an empty dataset with one line', async () => {
    const dir = await tempDir();
    const file = join(dir, 'p.jsonl');
    await writeFile(file, ['a', 'b', 'c', 'd'].map((id, i) => JSON.stringify({ id, text: `prompt ${id}`, split: i < 3 ? 'test' : 'train' })).join('\n'));
    const picked = await loadTextDataset(file, { split: 'test', seed: 3, maxSamples: 2 });
    assert.equal(picked.samples.length, 2);
    assert.equal(picked.filteredOut, 2);
    assert.deepEqual(picked.samples, (await loadTextDataset(file, { split: 'test', seed: 3, maxSamples: 2 })).samples);
    await assert.rejects(loadTextDataset(file, { maxDurationS: 5 }), /duration bounds select recordings, and prompts have none/);
    const empty = join(dir, 'empty.txt');
    await writeFile(empty, '\n\n');
    await assert.rejects(loadTextDataset(empty), /empty\.txt: no usable samples; it lists no text/);
  });
});
