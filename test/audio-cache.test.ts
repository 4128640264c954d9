import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, it } from 'node:test';
import { encodeFlac } from '../src/audio/flac-encode.js';
import { defaultCacheDir, PreparedAudioCache } from '../src/audio/prepared-cache.js';
import { preparedAudioReader } from '../src/audio/prepared-source.js';
import { UsageError } from '../src/config/settings.js';
import { loadDataset } from '../src/data/load.js';
import { vllmDialect } from '../src/dialects/vllm/client.js';
import { loadRunDataset } from '../src/run/run-context.js';
import { NO_PADDING, prepareSample } from '../src/session/prepare.js';
import { tone, toneWav, writeParquetShard } from './data-fixtures.js';
import { CLI, runNode, tempDir } from './helpers.js';

/** Five half-second 48 kHz stereo FLAC files of different tones, and one that is not audio. */
async function flacFolder(): Promise<string> {
  const dir = await tempDir();
  for (let i = 0; i < 5; i++) await writeFile(join(dir, `clip${i}.flac`), encodeFlac([tone(300 + 100 * i, 48_000, 0.5), tone(500, 48_000, 0.5)], 48_000));
  await writeFile(join(dir, 'broken.flac'), Buffer.from('fLaC but nothing after it'));
  return dir;
}

const dialect = vllmDialect({ model: 'm' });

/** Every prepared frame of every sample, as a run sends them. */
async function framesOf(data: string, audioCache: string | false): Promise<Buffer[]> {
  const dataset = await loadRunDataset({ data, audioCache });
  const frames: Buffer[] = [];
  for (const sample of dataset.samples) {
    if (sample.kind === 'text') continue;
    frames.push(
      ...(await prepareSample(sample, dialect, 100, NO_PADDING, 'auto')).first.chunks.map((c) => c.frame({ startMs: c.audioStartMs, endMs: c.audioEndMs })),
    );
  }
  return frames;
}

describe('the prepared-audio cache', () => {
  it('gives a second run byte-identical chunks from the cache, as a run without it prepares them', async () => {
    const data = await flacFolder();
    const cache = await tempDir();
    const uncached = await framesOf(data, false);
    assert.ok(uncached.length >= 25, `${uncached.length} frames`);
    assert.deepEqual(await framesOf(data, cache), uncached);
    const entries = await readdir(cache);
    assert.equal(entries.length, 5, 'one entry per usable file, none for the broken one');
    assert.deepEqual(await framesOf(data, cache), uncached);
    // What a later run sends comes from the cache: a sound entry of silence in place of one is sent.
    const entry = Buffer.from(await readFile(join(cache, entries[0]!)));
    entry.fill(0, 20);
    entry.writeUInt32LE(crc32(entry.subarray(20)), 16);
    await writeFile(join(cache, entries[0]!), entry);
    assert.notDeepEqual(await framesOf(data, cache), uncached);
  });

  it('ignores a corrupt or truncated entry and writes it again', async () => {
    const data = await flacFolder();
    const cache = await tempDir();
    const expected = await framesOf(data, cache);
    const [first, second] = (await readdir(cache)).map((name) => join(cache, name));
    const [good1, good2] = [await readFile(first!), await readFile(second!)];
    const flipped = Buffer.from(good1);
    flipped[good1.length - 3]! ^= 0x40;
    await writeFile(first!, flipped);
    await writeFile(second!, good2.subarray(0, 100));
    assert.deepEqual(await framesOf(data, cache), expected);
    assert.deepEqual(await readFile(first!), good1, 'rewritten whole');
    assert.deepEqual(await readFile(second!), good2, 'rewritten whole');
  });

  it('reads an entry back as it was written, and refuses one written for another rate', async () => {
    const cache = new PreparedAudioCache(await tempDir());
    const pcm = Int16Array.from({ length: 1001 }, (_, i) => ((i * 97) % 65536) - 32768);
    await cache.put('abc', { pcm, rate: 16_000, sourceRate: 44_100 });
    assert.deepEqual(await cache.get('abc', 16_000), { pcm, rate: 16_000, sourceRate: 44_100 });
    assert.equal(await cache.get('abc', 24_000), null);
    assert.equal(await cache.get('abd', 16_000), null);
  });

  it('with --no-cache writes nothing, and a --cache-dir it cannot create is refused naming the flag', async () => {
    const data = await flacFolder();
    assert.equal((await framesOf(data, false)).length > 0, true);
    const file = join(await tempDir(), 'a-file');
    await writeFile(file, 'x');
    await assert.rejects(
      loadRunDataset({ data, audioCache: join(file, 'cache') }),
      (err) =>
        err instanceof UsageError &&
        /^audioCache .*a-file\/cache: cannot create the folder \(ENOTDIR\); give a folder you can write, or audioCache: false$/.test(err.message),
    );
  });

  it('is what VOXBENCH_AUDIO_CACHE says (off: none), else under XDG_CACHE_HOME or ~/.cache; the tests set it off', () => {
    assert.equal(process.env.VOXBENCH_AUDIO_CACHE, 'off', 'set by the tests (test/helpers.ts, npm test), not detected');
    assert.equal(defaultCacheDir(), undefined);
    // The test runner is not detected: its marker alone leaves the default in place.
    assert.equal(defaultCacheDir({ NODE_TEST_CONTEXT: 'child-v8', XDG_CACHE_HOME: '/x/cache' }), '/x/cache/voxbench/audio');
    assert.equal(defaultCacheDir({ VOXBENCH_AUDIO_CACHE: 'off', XDG_CACHE_HOME: '/x/cache' }), undefined);
    assert.equal(defaultCacheDir({ VOXBENCH_AUDIO_CACHE: '/y/audio', XDG_CACHE_HOME: '/x/cache' }), '/y/audio');
    assert.equal(defaultCacheDir({ XDG_CACHE_HOME: '/x/cache' }), '/x/cache/voxbench/audio');
    assert.match(defaultCacheDir({ HOME: '/home/u' }) ?? '', /\/\.cache\/voxbench\/audio$/);
  });

  it('is where `voxbench run --cache-dir` says, `--no-cache` leaves it empty, and `voxbench cache` sizes and clears it', { timeout: 30_000 }, async () => {
    const data = await flacFolder();
    const cache = await tempDir();
    const out = await tempDir();
    const ran = await runNode([CLI, 'run', '--data', data, '--pace', '10x', '--quiet', '--output-dir', join(out, 'a'), '--no-cache', '--cache-dir', cache]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(await readdir(cache), []);
    const cached = await runNode([CLI, 'run', '--data', data, '--pace', '10x', '--quiet', '--output-dir', join(out, 'b'), '--cache-dir', cache]);
    assert.equal(cached.code, 0, cached.stderr);
    assert.equal((await readdir(cache)).length, 5);
    const info = await runNode([CLI, 'cache', 'info', '--cache-dir', cache]);
    // The prepared audio's line, then the Hub downloads' (none here).
    assert.match(info.stdout, /: 5 files, 0\.\d MB\n.*hub: 0 Hub dataset commits, 0\.0 MB\n$/);
    await writeFile(join(cache, 'notes.txt'), 'mine');
    const cleared = await runNode([CLI, 'cache', 'clear', '--cache-dir', cache]);
    assert.match(cleared.stdout, /removed 5 files/);
    assert.deepEqual(await readdir(cache), ['notes.txt'], 'only the entries are removed');
  });
});

describe('preparing across worker threads', () => {
  it('leaves a Parquet row group whole for its other rows', { timeout: 30_000 }, async () => {
    const file = join(await tempDir(), 'train.parquet');
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    writeParquetShard(file, { id: ids, text: ids, audio: ids.map((_, i) => ({ bytes: toneWav(0.3, { hz: 300 + 50 * i }), path: null })) }, { rowGroupSize: 3 });
    const audio = preparedAudioReader(16_000, { threads: 2, poolAfterMs: 0 });
    const pooled = await loadDataset(file, { audio }).finally(() => audio.close());
    const alone = await loadDataset(file, { audio: preparedAudioReader(16_000, { threads: 1 }) });
    assert.equal(pooled.samples.length, 6);
    assert.deepEqual(pooled.samples, alone.samples);
  });

  it('gives the samples and problems that preparing in this thread gives', { timeout: 30_000 }, async () => {
    const data = await flacFolder();
    for (let i = 5; i < 9; i++) await writeFile(join(data, `clip${i}.flac`), encodeFlac(tone(200 + 50 * i, 44_100, 0.4), 44_100));
    await writeFile(join(data, 'zbroken.wav'), Buffer.from('RIFF....WAVEdata'));
    // Short enough that its 16-bit samples would fit in Node's shared Buffer pool, which must not be transferred.
    for (const name of ['short1', 'short2', 'short3']) await writeFile(join(data, `${name}.flac`), encodeFlac(tone(700, 16_000, 0.05), 16_000));
    const load = async (threads: number) => {
      const audio = preparedAudioReader(16_000, { threads, poolAfterMs: 0 });
      try {
        return await loadDataset(data, { audio, keepFiles: true });
      } finally {
        await audio.close();
      }
    };
    const [alone, pooled] = [await load(1), await load(2)];
    assert.equal(pooled.samples.length, 12);
    assert.deepEqual(pooled.samples, alone.samples);
    // The files went to the threads as copies: the loader's own bytes are intact.
    for (const sample of pooled.samples) assert.ok(Buffer.from(sample.file!).equals(await readFile(sample.path)), sample.id);
    assert.deepEqual(pooled.problems, alone.problems);
    assert.equal(pooled.problems.length, 2);
    assert.match(pooled.problems[0]!.reason, /FLAC/);
    assert.match(pooled.problems[1]!.reason, /WAV/);
    assert.deepEqual(
      pooled.samples.map((s) => [s.audio.sampleRate, s.sourceRate]),
      alone.samples.map((s) => [16_000, s.id.startsWith('short') ? 16_000 : s.id < 'clip5' ? 48_000 : 44_100]),
    );
  });
});
