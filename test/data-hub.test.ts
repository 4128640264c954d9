import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { loadDataset, type DatasetOptions } from '../src/data/load.js';
import type { Report } from '../src/report/schema.js';
import { DownloadProgress } from '../src/data/hub/progress.js';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { createServer } from 'node:http';
import { seededRandom } from '../src/util/random.js';
import { tone, writeParquetShard, type AudioCell, type Columns } from './data-fixtures.js';
import { startTestHub, type HubRepo } from './hub-fixture.js';
import { CLI, runNode, tempDir } from './helpers.js';

/** A one-second tone in noise: 32 kB of WAV that does not compress away. */
function noisyTone(hz: number): Uint8Array {
  const random = seededRandom(hz);
  return encodeWaveFromFloat32Channels([tone(hz, 16_000, 1).map((x) => x + 0.05 * (random() - 0.5))], 16_000, 16);
}

/** `rows` rows of noisy tones in row groups of eight, as one Parquet file's bytes. */
async function tones(rows: number, prefix: string): Promise<Uint8Array> {
  const file = join(await tempDir(), 'shard.parquet');
  const audio: AudioCell[] = Array.from({ length: rows }, (_, i) => ({ bytes: noisyTone(300 + 5 * i), path: `${prefix}${i}.wav` }));
  const columns: Columns = { id: audio.map((_, i) => `${prefix}${i}`), audio, text: audio.map((_, i) => `tone number ${i}`) };
  writeParquetShard(file, columns, { rowGroupSize: 8 });
  return readFile(file);
}

// 5 MB: well over the reader's first read of a footer (512 kB) and the 32 samples a selection reads at least (1 MB).
const TEST = await tones(160, 'x');
const TRAIN = await tones(2, 't');
const SMALL = await tones(2, 's');
const MAIN = 'a'.repeat(40);
const CONVERTED = 'c'.repeat(40);
const TOKEN = 'hf_test_token_never_shown_7d1c';

const REPOS: Record<string, HubRepo> = {
  // push_to_hub's layout: data/{split}-00000-of-00001.parquet, no configs in the card.
  'voxbench/tones': {
    refs: { main: MAIN },
    commits: { [MAIN]: { files: { 'data/test-00000-of-00001.parquet': TEST, 'data/train-00000-of-00001.parquet': TRAIN } } },
  },
  // Two configs named by the card's data_files.
  'voxbench/multi': {
    refs: { main: MAIN },
    commits: {
      [MAIN]: {
        files: { 'clean/test-00000-of-00001.parquet': SMALL, 'other/test-00000-of-00001.parquet': SMALL },
        configs: [
          { config_name: 'clean', data_files: [{ split: 'test', path: 'clean/test-*' }] },
          { config_name: 'other', data_files: [{ split: 'test', path: 'other/test-*' }] },
        ],
      },
    },
  },
  // No Parquet of its own: read from the Hub's conversion, {config}/{split}/0000.parquet.
  'voxbench/converted': {
    refs: { main: MAIN, 'refs/convert/parquet': CONVERTED },
    commits: { [MAIN]: { files: {} }, [CONVERTED]: { files: { 'default/test/0000.parquet': SMALL } } },
  },
  // A script dataset the Hub has not converted: no Parquet anywhere.
  'voxbench/script': { refs: { main: MAIN, v1: MAIN }, commits: { [MAIN]: { files: {} } } },
  'voxbench/gated': {
    refs: { main: MAIN },
    commits: { [MAIN]: { files: { 'data/test-00000-of-00001.parquet': SMALL } } },
    gatedToken: TOKEN,
  },
};

/** Loads a Hub dataset with the Hub's variables set for the call alone (HF_TOKEN unset unless given). */
async function loadHub(data: string, options: DatasetOptions, env: Record<string, string>): Promise<Awaited<ReturnType<typeof loadDataset>>> {
  const saved = { ...process.env };
  Object.assign(process.env, { HF_TOKEN: '', HF_HUB_OFFLINE: '', ...env });
  try {
    return await loadDataset(data, options);
  } finally {
    for (const key of ['HF_TOKEN', 'HF_HUB_OFFLINE', 'HF_ENDPOINT']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}

/** A loopback port nothing listens on any more. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const sampleIds = (dataset: { samples: Array<{ id: string }> }): string[] => dataset.samples.map((s) => s.id);

describe('--data hf:<id>: a dataset on the Hub', () => {
  it('runs from the Hub fetching less than the split, then offline from the cache, naming the dataset and its commit in the report', async () => {
    const hub = await startTestHub(REPOS);
    const [cache, out] = [await tempDir(), await tempDir()];
    const flags = ['--split', 'test', '--max-samples', '2', '--pace', 'none', '--max-sessions', '2', '--quiet', '--cache-dir', cache];
    const online = await runNode([CLI, 'run', '--data', 'hf:voxbench/tones', ...flags, '--output-dir', join(out, 'a')], { HF_ENDPOINT: hub.url, HF_TOKEN: '' });
    assert.equal(online.code, 0, online.stderr);
    const report = JSON.parse(await readFile(join(out, 'a', 'report.json'), 'utf8')) as Report;
    assert.deepEqual(report.dataset.hub, { id: 'voxbench/tones', config: 'default', split: 'test', revision: 'main', commit: MAIN });
    assert.equal(report.dataset.count, 2);
    const { hub_dataset, hub_config, hub_split, hub_commit } = report.record.input;
    assert.deepEqual([hub_dataset, hub_config, hub_split, hub_commit], ['voxbench/tones', 'default', 'test', MAIN]);
    // Two samples: the footer, the listed columns and the audio of the first row groups (a selection reads 32 candidates), not the split; the train split not at all.
    const sent = hub.sent.get('voxbench/tones/data/test-00000-of-00001.parquet')!;
    assert.ok(sent > 0 && sent < TEST.length / 2, `${sent} bytes sent of ${TEST.length}`);
    assert.equal(hub.sent.get('voxbench/tones/data/train-00000-of-00001.parquet'), undefined);

    // Offline, with nothing listening where the Hub was: the same samples from the cache.
    await hub.close();
    const offline = await runNode([CLI, 'run', '--data', 'hf:voxbench/tones', ...flags, '--output-dir', join(out, 'b')], {
      HF_ENDPOINT: hub.url,
      HF_HUB_OFFLINE: '1',
    });
    assert.equal(offline.code, 0, offline.stderr);
    const again = JSON.parse(await readFile(join(out, 'b', 'report.json'), 'utf8')) as Report;
    assert.equal(again.dataset.fingerprint, report.dataset.fingerprint);
    assert.equal(again.record.input.hub_commit, MAIN);

    // Offline, a selection that needs bytes never fetched is refused in one line.
    const more = await runNode([CLI, 'run', '--data', 'hf:voxbench/tones', ...flags, '--max-samples', '60', '--output-dir', join(out, 'c')], {
      HF_ENDPOINT: hub.url,
      HF_HUB_OFFLINE: '1',
    });
    assert.equal(more.code, 2);
    assert.match(more.stderr, /HF_HUB_OFFLINE=1: hf:voxbench\/tones\/data\/test-00000-of-00001.parquet is cached only in part/);

    // The cache lists the commit held in part, and clears it.
    const info = await runNode([CLI, 'cache', 'info', '--cache-dir', cache]);
    assert.match(info.stdout, new RegExp(`hf:voxbench/tones@${MAIN}: 0 files whole, 1 in part, \\d+\\.\\d MB`));
    const cleared = await runNode([CLI, 'cache', 'clear', '--cache-dir', cache]);
    assert.match(cleared.stdout, /hub: removed 1 Hub dataset commit,/);
    assert.match((await runNode([CLI, 'cache', 'info', '--cache-dir', cache])).stdout, /hub: 0 Hub dataset commits, 0\.0 MB\n$/);
  });

  it('refuses a gated dataset without a token, reads it with one, and never shows the token', async () => {
    const hub = await startTestHub(REPOS);
    const [cache, out] = [await tempDir(), await tempDir()];
    const args = [CLI, 'run', '--data', 'hf:voxbench/gated', '--pace', 'none', '--max-sessions', '1', '--quiet', '--cache-dir', cache, '--output-dir', out];
    const refused = await runNode(args, { HF_ENDPOINT: hub.url, HF_TOKEN: '' });
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr.trim(),
      `voxbench: error: hf:voxbench/gated is gated: accept its conditions at ${hub.url}/datasets/voxbench/gated, then set HF_TOKEN to an access token of that account`,
    );
    const read = await runNode(args, { HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN });
    assert.equal(read.code, 0, read.stderr);
    const written = [...(await readdir(out, { recursive: true })), ...(await readdir(cache, { recursive: true }))];
    for (const text of [
      read.stdout,
      read.stderr,
      ...(await Promise.all(written.map((f) => readFile(join(out, f), 'utf8').catch(() => readFile(join(cache, f), 'utf8').catch(() => ''))))),
    ]) {
      assert.ok(!text.includes(TOKEN), 'the token is written nowhere');
    }
    // A token without access is told apart from none.
    await assert.rejects(loadHub('hf:voxbench/gated', { hub: { cacheDir: false } }, { HF_ENDPOINT: hub.url, HF_TOKEN: 'hf_another' }), {
      message: `hf:voxbench/gated is gated, and the account of HF_TOKEN has no access to it: accept its conditions at ${hub.url}/datasets/voxbench/gated`,
    });
  });

  it('names what exists when a dataset, revision, config or split is not there, and says when the Hub cannot be reached', async () => {
    const hub = await startTestHub(REPOS);
    const env = { HF_ENDPOINT: hub.url };
    const refused = async (data: string, options: DatasetOptions, message: string, vars: Record<string, string> = env): Promise<void> => {
      await assert.rejects(loadHub(data, { ...options, hub: { cacheDir: false, ...options.hub } }, vars), { name: 'DatasetError', message });
    };
    await refused('hf:voxbench/nope', {}, `hf:voxbench/nope: no such dataset on ${hub.url} (a private one needs HF_TOKEN)`);
    await refused('hf:voxbench/tones', { hub: { revision: 'v9' } }, 'hf:voxbench/tones: no revision "v9"; give a branch, tag or commit with --revision');
    await refused('hf:voxbench/multi', {}, 'hf:voxbench/multi has configs clean, other; choose one with --hf-config');
    await refused('hf:voxbench/multi', { hub: { config: 'noisy' } }, 'hf:voxbench/multi: no config "noisy"; it has clean, other');
    await refused('hf:voxbench/multi', { split: 'dev', hub: { config: 'clean' } }, 'hf:voxbench/multi (config clean): no split "dev"; it has test');
    await refused('hf:voxbench/tones', {}, 'hf:voxbench/tones (config default) has splits test, train; choose one with --split');
    await refused('hf:voxbench/script', {}, 'hf:voxbench/script has no Parquet files, and the Hub has not converted it to Parquet');
    await refused(
      'hf:voxbench/script',
      { hub: { revision: 'v1' } },
      'hf:voxbench/script: revision v1 has no Parquet files, and the Hub converts only main (refs/convert/parquet); leave out the revision',
    );
    await refused('hf:voxbench/tones', {}, 'HF_HUB_OFFLINE=1 reads hf:voxbench/tones from the download cache, and this run keeps none; give a cache folder', {
      HF_HUB_OFFLINE: '1',
    });
    await refused('hf:voxbench/a/b', {}, 'hf:voxbench/a/b: not a Hub dataset id; write hf:<owner>/<name> or hf://datasets/<owner>/<name>[@<revision>]');
    const nobody = await closedPort();
    await refused(
      'hf:voxbench/tones',
      {},
      `hf:voxbench/tones: cannot reach http://127.0.0.1:${nobody} (ECONNREFUSED); check the network or HF_ENDPOINT, or set HF_HUB_OFFLINE=1 to read only what is cached`,
      { HF_ENDPOINT: `http://127.0.0.1:${nobody}` },
    );
  });

  it("reads a config of the card's, by the hf:// form with a revision, and the Hub's Parquet conversion when the repository has none", async () => {
    const hub = await startTestHub(REPOS);
    const env = { HF_ENDPOINT: hub.url };
    const clean = await loadHub('hf://datasets/voxbench/multi@main', { hub: { config: 'clean', cacheDir: false } }, env);
    assert.deepEqual(sampleIds(clean), ['s0', 's1']);
    assert.deepEqual(clean.hub, { id: 'voxbench/multi', config: 'clean', split: 'test', revision: 'main', commit: MAIN });
    const converted = await loadHub('hf:voxbench/converted', { hub: { cacheDir: false } }, env);
    assert.deepEqual(sampleIds(converted), ['s0', 's1']);
    assert.deepEqual(converted.hub, { id: 'voxbench/converted', config: 'default', split: 'test', revision: 'refs/convert/parquet', commit: CONVERTED });
    assert.match(converted.samples[0]!.path, new RegExp(`^hf://datasets/voxbench/converted@${CONVERTED}/default/test/0000.parquet row 0$`));
  });

  it('resumes a download cut off, fetching no byte twice', async () => {
    const hub = await startTestHub(REPOS);
    const key = 'voxbench/tones/data/test-00000-of-00001.parquet';
    const options = (cacheDir: string): DatasetOptions => ({ split: 'test', maxSamples: 3, hub: { cacheDir } });
    const whole = await loadHub('hf:voxbench/tones', options(await tempDir()), { HF_ENDPOINT: hub.url });
    const needed = hub.sent.get(key)!;
    hub.sent.clear();

    const cache = await tempDir();
    hub.cutNext.set(key, 100_000);
    await assert.rejects(loadHub('hf:voxbench/tones', options(cache), { HF_ENDPOINT: hub.url }), {
      message: /^hf:voxbench\/tones\/data\/test-00000-of-00001.parquet: the download was cut off after 100000 of \d+ bytes .*run again to resume$/,
    });
    const resumed = await loadHub('hf:voxbench/tones', options(cache), { HF_ENDPOINT: hub.url });
    assert.deepEqual(sampleIds(resumed), sampleIds(whole));
    assert.equal(hub.sent.get(key), needed, 'the bytes of both attempts together are those of one');
  });

  it('checks a file read whole against the sha256 the Hub lists, and drops it when it does not match', async () => {
    const damaged = Uint8Array.from(SMALL);
    damaged[100]! ^= 0xff;
    const files = { 'data/test-00000-of-00001.parquet': SMALL };
    const hub = await startTestHub({
      'voxbench/small': { refs: { main: MAIN }, commits: { [MAIN]: { files } } },
      'voxbench/damaged': { refs: { main: MAIN }, commits: { [MAIN]: { files, damaged: { 'data/test-00000-of-00001.parquet': damaged } } } },
    });
    const cache = await tempDir();
    const kept = (id: string): string => join(cache, 'datasets', 'voxbench', id, MAIN, 'files', 'data');
    // A file smaller than the reader's first read of its footer is read whole, checked, and kept under its own name.
    await loadHub('hf:voxbench/small', { hub: { cacheDir: cache } }, { HF_ENDPOINT: hub.url });
    assert.ok((await readFile(join(kept('small'), 'test-00000-of-00001.parquet'))).equals(SMALL));
    await assert.rejects(loadHub('hf:voxbench/damaged', { hub: { cacheDir: cache } }, { HF_ENDPOINT: hub.url }), {
      message:
        /^hf:voxbench\/damaged\/data\/test-00000-of-00001.parquet: the downloaded file does not match the Hub's sha256; it was removed from the cache, run again/,
    });
    assert.deepEqual(await readdir(kept('damaged')), []);
  });

  it("runs the docs' test-hub example as written, against the local test hub", async () => {
    const page = await readFile(join(ROOT, 'docs', 'datasets.md'), 'utf8');
    const block = /```sh test-hub\n([\s\S]*?)```/.exec(page)?.[1];
    assert.ok(block, 'docs/datasets.md has a test-hub example');
    const hub = await startTestHub(REPOS);
    const [cache, out] = [await tempDir(), await tempDir()];
    for (const [i, line] of block.trim().split('\n').entries()) {
      // `NAME=value npx voxbench …`: the variables, then the command's words.
      const words = line.split(/\s+/);
      const vars = Object.fromEntries(words.slice(0, words.indexOf('npx')).map((w) => w.split('=') as [string, string]));
      const args = words.slice(words.indexOf('voxbench') + 1);
      const caps = args[0] === 'run' ? ['--pace', 'none', '--max-sessions', '1', '--quiet', '--output-dir', join(out, String(i))] : [];
      const result = await runNode([CLI, ...args, ...caps, '--cache-dir', cache], { HF_ENDPOINT: hub.url, HF_TOKEN: '', ...vars });
      assert.equal(result.code, 0, `${line}: ${result.stderr}`);
      if (args[0] === 'cache') assert.match(result.stdout, new RegExp(`hf:voxbench/tones@${MAIN}: 0 files whole, 1 in part`));
    }
  });

  it(
    'shows download progress on a terminal, and none in a pipe',
    { skip: !existsSync('/usr/bin/script') && 'needs script(1) to give the CLI a terminal' },
    async () => {
      const hub = await startTestHub(REPOS);
      const env = { ...process.env, HF_ENDPOINT: hub.url, HF_TOKEN: '' };
      const args = [CLI, 'dataset', 'inspect', 'hf:voxbench/tones', '--split', 'test', '--max-samples', '2'];
      // script(1) runs the command on a pseudo-terminal and copies what it writes.
      const onTerminal = await new Promise<string>((resolve, reject) => {
        const child = spawn('script', ['-qec', [process.execPath, ...args].join(' '), '/dev/null'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
        let output = '';
        child.stdout.on('data', (d) => (output += d));
        child.on('error', reject);
        child.on('close', () => resolve(output));
      });
      // eslint-disable-next-line no-control-regex -- the terminal's line redraw is what is looked for
      assert.match(onTerminal, /\r\x1b\[Khf:voxbench\/tones\/data\/test-00000-of-00001\.parquet: \d+\.\d of \d+\.\d MB/);
      const piped = await runNode(args, env);
      assert.equal(piped.code, 0, piped.stderr);
      assert.ok(!piped.stderr.includes('\x1b[K'), 'no progress line in a pipe');
    },
  );

  it('draws download progress on a terminal, one line redrawn and cleared', () => {
    const writes: string[] = [];
    const progress = new DownloadProgress({ write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream);
    const range = progress.start('hf:voxbench/tones/data/test.parquet', 2_000_000);
    range.advance(500_000);
    range.end();
    assert.deepEqual(writes, ['\r\x1b[Khf:voxbench/tones/data/test.parquet: 0.5 of 2.0 MB', '\r\x1b[K']);
  });
});
