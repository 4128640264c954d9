import assert from 'node:assert/strict';
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { summarizeDataset } from '../src/data/dataset.js';
import { DatasetError, describeProblem } from '../src/data/errors.js';
import { loadDataset } from '../src/data/load.js';
import { DECODE_IN_THREAD } from '../src/audio/prepared-source.js';
import { AUDIO_FIXTURES, toneWav } from './data-fixtures.js';
import { renderSummary } from '../src/report/console.js';
import { run } from '../src/run/run.js';
import { tempDir } from './helpers.js';

async function folderOf(files: Record<string, string | Uint8Array | { fixture: string }>): Promise<string> {
  const dir = await tempDir();
  for (const [name, content] of Object.entries(files)) {
    if (typeof content === 'object' && 'fixture' in content) await copyFile(join(AUDIO_FIXTURES, content.fixture), join(dir, name));
    else await writeFile(join(dir, name), content);
  }
  return dir;
}

describe('folder dataset', () => {
  it('loads every supported format with its transcript and word timings', async () => {
    const dir = await folderOf({
      'a.wav': { fixture: 'pcm-s24.wav' },
      'a.txt': 'alpha\n',
      'a.words.json': '[{"word": "alpha", "start": 0.01, "end": 0.19}]',
      'b.flac': { fixture: 'tone.flac' },
      'b.txt': 'bravo',
      'c.mp3': { fixture: 'tone.mp3' },
      'd.ogg': { fixture: 'tone.ogg' },
      'e.opus': { fixture: 'tone.opus' },
      'README.md': 'not a sample',
    });
    const dataset = await loadDataset(dir);
    assert.equal(dataset.kind, 'folder');
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.split, s.text, s.audio.sampleRate, s.audio.samples.length]),
      [
        ['a', 'default', 'alpha', 22_050, 4410],
        ['b', 'default', 'bravo', 22_050, 4410],
        ['c', 'default', null, 22_050, 4410],
        ['d', 'default', null, 22_050, 4410],
        ['e', 'default', null, 48_000, 9600],
      ],
    );
    assert.deepEqual(dataset.samples[0]!.words, [{ word: 'alpha', start: 0.01, end: 0.19 }]);
    assert.deepEqual(dataset.problems, []);
    const summary = summarizeDataset(dataset);
    assert.equal(summary.count, 5);
    assert.equal(summary.totalAudioS, 1);
    assert.deepEqual(summary.sampleRatesHz, [22_050, 48_000]);
    assert.deepEqual([summary.withReference, summary.withWordTimings], [2, 1]);
  });

  it('skips each unusable file with its path and reason, and loads the rest', async () => {
    const dir = await folderOf({
      'good.wav': toneWav(0.3),
      'good.flac': { fixture: 'tone.flac' },
      'silent.wav': encodeWaveFromFloat32Channels([new Float32Array(16_000)], 16_000, 16),
      'empty.wav': new Uint8Array(0),
      'song.m4a': new Uint8Array([0, 0, 0, 24, ...new TextEncoder().encode('ftypM4A '), 0, 0, 0, 0]),
      'late.wav': toneWav(0.3),
      'late.words.json': '[{"word": "late", "start": 0.1, "end": 0.9}]',
      'broken.words.json': '[{"word": "x", "start": 1}]',
      'broken.wav': toneWav(0.3),
    });
    const dataset = await loadDataset(dir);
    assert.deepEqual(
      dataset.samples.map((s) => s.id),
      ['good'],
    );
    assert.deepEqual(dataset.problems.map(describeProblem), [
      `${join(dir, 'broken.wav')}: broken.words.json must be a JSON array of {"word", "start", "end"} with end >= start (seconds)`,
      `${join(dir, 'empty.wav')}: the file is empty (0 bytes)`,
      `${join(dir, 'good.wav')}: duplicate sample id "good" (first at ${join(dir, 'good.flac')})`,
      `${join(dir, 'late.wav')}: the word timings end at 0.90 s but the audio is 0.30 s long`,
      `${join(dir, 'silent.wav')}: the audio is silent: no 20 ms frame reaches -40 dBFS`,
      `${join(dir, 'song.m4a')}: MP4/M4A (AAC) is not supported; convert it to one of WAV, FLAC, MP3, Ogg Vorbis, Opus (e.g. with sox or ffmpeg)`,
    ]);
  });

  it("reads transcripts by their byte-order mark (UTF-8, UTF-16 LE and BE), and names one that is not valid text as that sample's problem", async () => {
    const utf16 = (text: string, bigEndian: boolean): Buffer => {
      const le = Buffer.from(`\ufeff${text}`, 'utf16le');
      return bigEndian ? le.swap16() : le;
    };
    const dir = await folderOf({
      'bom8.wav': toneWav(0.3),
      'bom8.txt': Buffer.from('\ufeffcafé ten\n', 'utf8'),
      'le.wav': toneWav(0.3),
      'le.txt': utf16('café ten\r\n', false),
      'be.wav': toneWav(0.3),
      'be.txt': utf16('café ten', true),
      'bad.wav': toneWav(0.3),
      'bad.txt': Buffer.from([0x74, 0x65, 0xff, 0xfe, 0x6e]), // not UTF-8, no byte-order mark
      'nomark.wav': toneWav(0.3),
      'nomark.txt': Buffer.from('ten', 'utf16le'), // UTF-16 without its mark
    });
    const dataset = await loadDataset(dir);
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.text]),
      [
        ['be', 'café ten'],
        ['bom8', 'café ten'],
        ['le', 'café ten'],
      ],
    );
    assert.deepEqual(dataset.problems.map(describeProblem), [
      `${join(dir, 'bad.wav')}: the transcript bad.txt is not valid UTF-8 text; save it as UTF-8`,
      `${join(dir, 'nomark.wav')}: the transcript nomark.txt holds NUL characters (UTF-16 without a byte-order mark?); save it as UTF-8`,
    ]);
  });

  it('the console names the first skipped files with their reasons, then counts the rest and says where they are', async () => {
    const dir = await folderOf({
      'good.wav': { fixture: 'pcm-s24.wav' },
      'good.txt': 'alpha',
      ...Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((id) => [`${id}.wav`, new Uint8Array(0)])),
    });
    const { report } = await run({ data: dir, maxSessions: 1, pace: { kind: 'none' }, audioCache: false });
    const lines = renderSummary(report).split('\n');
    assert.deepEqual(
      lines.filter((line) => line.startsWith('skipped')),
      [
        ...['a', 'b', 'c'].map((id) => `skipped ${join(dir, `${id}.wav`)}: the file is empty (0 bytes)`),
        'skipped 2 more; every one is in report.json (dataset.problems)',
      ],
    );
  });

  it('judges a PCM WAV from its header and samples before decoding: a silent one, or one the duration bounds leave out, is never decoded', async () => {
    const dir = await folderOf({
      'silent.wav': encodeWaveFromFloat32Channels([new Float32Array(16_000 * 3)], 16_000, 16),
      'long.wav': toneWav(3),
      'kept.wav': toneWav(0.5),
    });
    const decoded: string[] = [];
    const audio = {
      ...DECODE_IN_THREAD,
      read: (bytes: Uint8Array, name: string, digest: string) => (decoded.push(name), DECODE_IN_THREAD.read(bytes, name, digest)),
    };
    const dataset = await loadDataset(dir, { maxDurationS: 2, audio });
    assert.deepEqual(
      dataset.samples.map((s) => s.id),
      ['kept'],
    );
    assert.deepEqual(dataset.problems.map(describeProblem), [`${join(dir, 'silent.wav')}: the audio is silent: no 20 ms frame reaches -40 dBFS`]);
    assert.equal(dataset.filteredOut, 1);
    assert.deepEqual(decoded, [join(dir, 'kept.wav')], 'only the file kept was decoded');
  });

  it('with strict, throws the first problem with the message it would be recorded with', async () => {
    const dir = await folderOf({ 'a.wav': toneWav(0.3), 'b.wav': new Uint8Array(0), 'c.wav': 'not audio' });
    const lenient = await loadDataset(dir);
    await assert.rejects(loadDataset(dir, { strict: true }), (err: unknown) => {
      assert.ok(err instanceof DatasetError);
      assert.equal(err.message, describeProblem(lenient.problems[0]!));
      return true;
    });
  });

  it('fails with one message when nothing is usable', async () => {
    const empty = await folderOf({ 'notes.txt': 'no audio here' });
    await assert.rejects(loadDataset(empty), { name: 'DatasetError', message: `${empty}: no usable samples; it lists no audio` });
    const broken = await folderOf({ 'a.wav': 'not audio' });
    await assert.rejects(loadDataset(broken), {
      message: `${broken}: no usable samples; 1 skipped (first: ${join(broken, 'a.wav')}: not a recognised audio file; voxbench reads WAV, FLAC, MP3, Ogg Vorbis, Opus)`,
    });
  });
});
