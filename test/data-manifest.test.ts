import assert from 'node:assert/strict';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DatasetError, describeProblem } from '../src/data/errors.js';
import { loadDataset } from '../src/data/load.js';
import { AUDIO_FIXTURES, toneWav } from './data-fixtures.js';
import { tempDir } from './helpers.js';

/** A manifest (one line per entry of `lines`, objects as JSON, strings as they are) next to a clips/ folder. */
async function manifestWith(lines: Array<object | string>, name = 'manifest.jsonl'): Promise<string> {
  const dir = await tempDir();
  await mkdir(join(dir, 'clips'));
  await writeFile(join(dir, 'clips', 'a.wav'), toneWav(0.5));
  await writeFile(join(dir, 'clips', 'f.wav'), toneWav(0.25));
  await copyFile(join(AUDIO_FIXTURES, 'tone.flac'), join(dir, 'clips', 'e.flac'));
  const file = join(dir, name);
  await writeFile(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return file;
}

describe('JSONL manifest', () => {
  it('reads ids, audio paths relative to the manifest, text, split, language, words and segments', async () => {
    const file = await manifestWith([
      {
        id: 'a',
        audio: 'clips/a.wav',
        text: ' alpha ',
        split: 'test',
        language: 'en',
        words: [{ word: 'alpha', start: 0.1, end: 0.4 }],
        segments: [{ start: 0.05, end: 0.45 }],
      },
      { id: 'e', audio: 'clips/e.flac', text: 'echo', language: 'fr' },
      { audio_filepath: 'clips/f.wav', text: 'foxtrot', duration: 0.25 },
    ]);
    const dataset = await loadDataset(file);
    assert.equal(dataset.kind, 'jsonl');
    assert.deepEqual(dataset.problems, []);
    const [a, e, f] = dataset.samples;
    assert.deepEqual(
      { ...a!, audio: a!.audio.samples.length },
      {
        id: 'a',
        split: 'test',
        text: 'alpha',
        language: 'en',
        path: join(file, '..', 'clips', 'a.wav'),
        words: [{ word: 'alpha', start: 0.1, end: 0.4 }],
        segments: [{ start: 0.05, end: 0.45 }],
        audio: 8000,
      },
    );
    assert.deepEqual([e!.id, e!.split, e!.language, e!.audio.samples.length], ['e', 'default', 'fr', 4410]);
    // A NeMo-style row: the audio under audio_filepath, the id from the path.
    assert.deepEqual([f!.id, f!.text, f!.audio.samples.length], ['clips/f', 'foxtrot', 4000]);
  });

  it('reports each bad row with its line number and reason, and loads the rest', async () => {
    const file = await manifestWith([
      { id: 'a', audio: 'clips/a.wav', text: 'alpha' },
      '',
      '{"id": "broken", "audio": ',
      '[1, 2]',
      { id: 'b', text: 'no audio' },
      { id: 'c', audio: 'clips/missing.wav', text: 'gone' },
      { id: 'd', audio: 'clips/e.flac', text: 'delta', words: [{ word: 'x' }] },
      { id: 'a', audio: 'clips/f.wav', text: 'again' },
      { id: 'g', audio: 'clips/f.wav', text: 42 },
    ]);
    const dataset = await loadDataset(file);
    assert.deepEqual(
      dataset.samples.map((s) => s.id),
      ['a'],
    );
    assert.deepEqual(
      dataset.problems.map((p) => [p.line, p.reason]),
      [
        [3, 'not valid JSON (Unexpected end of JSON input)'],
        [4, 'must be a JSON object'],
        [5, 'no audio path: give each row an "audio" key, or name the key with --audio-column'],
        // Found once the audio is read, after the listing found the rest; reported in line order.
        [6, `the audio file ${join(file, '..', 'clips', 'missing.wav')} does not exist`],
        [7, '"words" must be a JSON array of {"word", "start", "end"} with end >= start (seconds)'],
        [8, `duplicate sample id "a" (first at ${file} line 1)`],
        [9, '"text" (the reference text) must be a string'],
      ],
    );
    assert.ok(dataset.problems.every((p) => p.file === file));
  });

  it('with strict, throws the first bad row as one line naming the manifest and line', async () => {
    const file = await manifestWith([{ id: 'a', audio: 'clips/a.wav' }, '{oops']);
    await assert.rejects(loadDataset(file, { strict: true }), (err: unknown) => {
      assert.ok(err instanceof DatasetError);
      assert.match(err.message, new RegExp(`^${file} line 2: not valid JSON \\(`));
      assert.ok(!err.message.includes('\n'));
      return true;
    });
  });

  it('maps keys with the column options', async () => {
    const file = await manifestWith([{ utt: 'u1', wav: 'clips/a.wav', transcript: 'alpha', lang: 'de' }], 'custom.ndjson');
    const dataset = await loadDataset(file, { columns: { id: 'utt', audio: 'wav' } });
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.text, s.language]),
      [['u1', 'alpha', 'de']],
    );
  });

  it('names a manifest that cannot be read', async () => {
    const dir = await tempDir();
    await assert.rejects(loadDataset(join(dir, 'none.jsonl')), { message: `${join(dir, 'none.jsonl')}: cannot read the dataset (ENOENT)` });
    await writeFile(join(dir, 'list.csv'), 'a,b\n');
    await assert.rejects(loadDataset(join(dir, 'list.csv')), /list\.csv: not a dataset; give a folder of audio files, a \.jsonl manifest/);
  });

  it('reports problems under the same message strict mode throws', async () => {
    const file = await manifestWith([
      { id: 'a', audio: 'clips/a.wav' },
      { id: 'z', audio: 'clips/none.wav' },
    ]);
    const [problem] = (await loadDataset(file)).problems;
    await assert.rejects(loadDataset(file, { strict: true }), { message: describeProblem(problem!) });
  });
});
