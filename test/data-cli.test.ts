import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadDataset } from '../src/data/load.js';
import { toneWav } from './data-fixtures.js';
import { CLI, runNode, tempDir } from './helpers.js';

async function manifestWithBadRow(): Promise<string> {
  const dir = await tempDir();
  await writeFile(join(dir, 'a.wav'), toneWav(0.5));
  await writeFile(join(dir, 'b.wav'), toneWav(1));
  const file = join(dir, 'set.jsonl');
  await writeFile(
    file,
    [
      '{"id": "a", "audio": "a.wav", "text": "alpha", "language": "en"}',
      '{"id": "b", "audio": ',
      '{"id": "b", "audio": "b.wav", "text": "bravo", "language": "fr"}',
    ].join('\n'),
  );
  return file;
}

describe('voxbench dataset inspect', () => {
  it('prints the summary and every problem with its line, and exits 0', async () => {
    const file = await manifestWithBadRow();
    const { code, stdout, stderr } = await runNode([CLI, 'dataset', 'inspect', file]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`^dataset +${file} \\(jsonl\\)$`, 'm'));
    assert.match(stdout, /^samples +2 usable, 1 skipped for problems, 0 left out by the selection$/m);
    assert.match(stdout, /^audio +1\.5 s in all, 0\.50–1\.00 s each, at 16000 Hz$/m);
    assert.match(stdout, /^languages +en 1, fr 1$/m);
    assert.match(stdout, new RegExp(`^  ${file} line 2: not valid JSON \\(`, 'm'));
  });

  it('applies the selection flags and prints JSON', async () => {
    const file = await manifestWithBadRow();
    const { code, stdout } = await runNode([CLI, 'dataset', 'inspect', file, '--data-language', 'fr', '--max-duration', '2', '--json']);
    assert.equal(code, 0);
    const { summary, problems } = JSON.parse(stdout) as {
      summary: { count: number; filteredOut: number; languages: Record<string, number> };
      problems: unknown[];
    };
    assert.deepEqual([summary.count, summary.filteredOut, summary.languages, problems.length], [1, 1, { fr: 1 }, 1]);
  });

  it('counts samples past --max-samples as left out by the selection', async () => {
    const { code, stdout } = await runNode([CLI, 'dataset', 'inspect', BUNDLED_SAMPLES_DIR, '--max-samples', '2']);
    assert.equal(code, 0);
    assert.match(stdout, /^samples +2 usable, 0 skipped for problems, 4 left out by the selection$/m);
  });

  it('a dataset with no usable sample is refused as run refuses it: one line, exit code 2 (inspect lists the problems first)', async () => {
    const file = await manifestWithBadRow();
    const line = `voxbench: error: ${file}: no usable samples; 1 skipped (first: ${file} line 2: not valid JSON`;
    for (const command of [
      ['dataset', 'inspect', file],
      ['run', '--data', file],
    ]) {
      const { code, stdout, stderr } = await runNode([CLI, ...command, '--max-duration', '0.1']);
      assert.equal(code, 2, command.join(' '));
      if (command[0] === 'run') assert.equal(stdout, '');
      else assert.match(stdout, new RegExp(`^problems \\(1\\):\n  ${file} line 2: not valid JSON`, 'm'));
      assert.ok(stderr.startsWith(line) && stderr.endsWith('; 2 left out by the selection options\n') && !stderr.slice(0, -1).includes('\n'), stderr);
    }
  });

  it('with --strict, stops at the first problem: one line, exit code 2', async () => {
    const file = await manifestWithBadRow();
    const { code, stdout, stderr } = await runNode([CLI, 'dataset', 'inspect', file, '--strict']);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`^voxbench: error: ${file} line 2: not valid JSON \\([^\\n]*\\)\\n$`));
  });

  for (const [args, expected] of [
    [['/nonexistent/set.jsonl'], /^voxbench: error: \/nonexistent\/set\.jsonl: cannot read the dataset \(ENOENT\)\n$/],
    [
      ['samples', '--max-samples', '0'],
      /^voxbench: error: option '--max-samples <n>' argument '0' is invalid\. expected a whole number from 1 up\. \(run with --help for usage\)\n$/,
    ],
  ] as const) {
    it(`rejects ${args.join(' ')} with one clear line and exit code 2`, async () => {
      const { code, stderr } = await runNode([CLI, 'dataset', 'inspect', ...args]);
      assert.equal(code, 2);
      assert.match(stderr, expected);
    });
  }
});

describe('voxbench dataset synth', () => {
  const LINES = 'The birch canoe slid on the smooth planks.\n\nGlue the sheet to the dark blue background.\n';

  it('speaks each line with espeak-ng into a folder dataset whose word timings match the audio', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'harvard.txt'), LINES);
    const out = join(dir, 'set');
    const { code, stdout, stderr } = await runNode([CLI, 'dataset', 'synth', join(dir, 'harvard.txt'), '--out', out, '--engine', 'espeak-ng']);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `wrote 2 utterances to ${out} (espeak-ng, voice en-us)\n`);
    const dataset = await loadDataset(out);
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.text, s.audio.sampleRate]),
      [
        ['harvard-001', 'The birch canoe slid on the smooth planks.', 16_000],
        ['harvard-003', 'Glue the sheet to the dark blue background.', 16_000],
      ],
    );
    for (const { words, audio } of dataset.samples) {
      assert.deepEqual(
        words!.map((w) => w.word),
        audio === dataset.samples[0]!.audio
          ? ['The', 'birch', 'canoe', 'slid', 'on', 'the', 'smooth', 'planks']
          : ['Glue', 'the', 'sheet', 'to', 'the', 'dark', 'blue', 'background'],
      );
      // Each word starts and ends with sound, and the audio between words is silent
      // (up to the resampler's ringing within 2 ms of an edge).
      const at = (s: number): number => Math.round(s * audio.sampleRate);
      const peak = (from: number, to: number): number => audio.samples.subarray(at(from), at(to)).reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      const edges = [0, ...words!.flatMap((w) => [w.start, w.end]), audio.samples.length / audio.sampleRate];
      for (let i = 0; i < edges.length; i += 2) assert.ok(peak(edges[i]! + 0.002, edges[i + 1]! - 0.002) < 0.002, `silence ${edges[i]}–${edges[i + 1]}`);
      for (const w of words!) {
        assert.ok(peak(w.start, w.start + 0.005) > 0.0005 && peak(w.end - 0.005, w.end) > 0.0005, `sound at the edges of ${w.word}`);
      }
    }
  });

  it('says which Debian package to install when no synthesizer is installed', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'lines.txt'), LINES);
    const { code, stderr } = await runNode([CLI, 'dataset', 'synth', join(dir, 'lines.txt'), '--out', join(dir, 'out')], { PATH: dir });
    assert.equal(code, 2);
    assert.equal(stderr, 'voxbench: error: dataset synth needs espeak-ng or flite, and neither is installed; install one with: apt-get install espeak-ng\n');
  });
});

describe('docs/datasets.md documents the dataset commands', () => {
  for (const command of ['inspect', 'synth']) {
    it(`lists every flag of voxbench dataset ${command}`, async () => {
      const readme = await readFile(fileURLToPath(new URL('../../docs/datasets.md', import.meta.url)), 'utf8');
      const help = (await runNode([CLI, 'dataset', command, '--help'])).stdout;
      const flags = [...help.matchAll(/^\s+(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]!).filter((f) => f !== '--help');
      assert.ok(flags.length >= 4);
      for (const flag of flags) assert.ok(readme.includes(`\`${flag}`), `${flag} of dataset ${command} is missing from docs/datasets.md`);
    });
  }
});
