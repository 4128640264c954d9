import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Binary, Field, Float64, List, RecordBatchStreamWriter, Struct, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { speechBySpeakerS, type DatasetProblem } from '../src/data/dataset.js';
import { describeProblem } from '../src/data/errors.js';
import { inspectDataset, renderInspection } from '../src/data/inspect.js';
import { loadDataset } from '../src/data/load.js';
import { formatRttm, parseRttm } from '../src/data/rttm.js';
import { toneWav } from './data-fixtures.js';
import { CLI, runNode, tempDir } from './helpers.js';

const turn = (speaker: string, startMs: number, endMs: number) => ({ speaker, startMs, endMs });

describe('RTTM', () => {
  it('reads the SPEAKER lines by file id in start order, passing over comments and other types, and reports each bad line with its file and line', () => {
    const problems: DatasetProblem[] = [];
    const rttm = parseRttm(
      [
        ';; a comment',
        'SPEAKER rec 1 1.001 0.5 <NA> <NA> B <NA> <NA>',
        'SPKR-INFO rec 1 <NA> <NA> <NA> unknown B <NA>',
        '',
        'SPEAKER rec 1 0.000 1.25 <NA> <NA> A <NA> <NA>',
        'SPEAKER rec 1 0.5 0.5 <NA> <NA>',
        'SPEAKER rec 1 -1 0.5 <NA> <NA> A <NA> <NA>',
        'SPEAKER rec 1 2 x <NA> <NA> A <NA> <NA>',
        '  SPEAKER\tother 1 3 1 <NA> <NA> A',
      ].join('\r\n'),
      'ref.rttm',
      (p) => problems.push(p),
    );
    assert.deepEqual(Object.fromEntries(rttm.turns), { rec: [turn('A', 0, 1250), turn('B', 1001, 1501)], other: [turn('A', 3000, 4000)] });
    assert.deepEqual(Object.fromEntries(rttm.firstLine), { rec: 2, other: 9 });
    assert.deepEqual(problems.map(describeProblem), [
      'ref.rttm line 6: an RTTM SPEAKER line needs 8 fields or more (SPEAKER file channel onset duration <NA> <NA> speaker), this one has 7',
      'ref.rttm line 7: the onset "-1" is not a number of seconds >= 0',
      'ref.rttm line 8: the duration "x" is not a number of seconds >= 0',
    ]);
  });

  it('writes turns that read back the same', () => {
    const turns = [turn('spk1', 200, 2813), turn('spk2', 2513, 5287)];
    assert.equal(formatRttm('talk', turns), 'SPEAKER talk 1 0.200 2.613 <NA> <NA> spk1 <NA> <NA>\nSPEAKER talk 1 2.513 2.774 <NA> <NA> spk2 <NA> <NA>\n');
    assert.deepEqual(parseRttm(formatRttm('talk', turns), 'x', (p) => assert.fail(p.reason)).turns.get('talk'), turns);
  });

  it("counts a speaker's own overlapping turns once", () => {
    assert.deepEqual(speechBySpeakerS([turn('B', 0, 500), turn('A', 0, 1000), turn('A', 500, 1500), turn('A', 2000, 2250)]), { A: 1.75, B: 0.5 });
  });
});

describe('datasets with speaker turns', () => {
  it('a folder: each recording its own NAME.rttm, the rest from a dataset-wide RTTM by file id; bad lines and unknown ids are reported and the rest load', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.wav'), toneWav(2));
    await writeFile(join(dir, 'a.rttm'), 'SPEAKER whatever 1 1.0 0.5 <NA> <NA> B <NA> <NA>\nSPEAKER whatever 1 0.1 0.8 <NA> <NA> A <NA> <NA>\n');
    await writeFile(join(dir, 'b.wav'), toneWav(2));
    await writeFile(join(dir, 'c.wav'), toneWav(1));
    await writeFile(join(dir, 'd.wav'), toneWav(1));
    await writeFile(
      join(dir, 'all.rttm'),
      [
        'SPEAKER b 1 0.0 1.0 <NA> <NA> A <NA> <NA>',
        'SPEAKER b 1 oops 1.0 <NA> <NA> A <NA> <NA>',
        'SPEAKER zz 1 0.0 1.0 <NA> <NA> A <NA> <NA>',
        'SPEAKER c 1 0.5 1.0 <NA> <NA> A <NA> <NA>',
        'SPEAKER a 1 0.0 1.0 <NA> <NA> C <NA> <NA>',
      ].join('\n'),
    );
    const dataset = await loadDataset(dir);
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.turns]),
      [
        ['a', [turn('A', 100, 900), turn('B', 1000, 1500)]],
        ['b', [turn('A', 0, 1000)]],
        ['d', undefined],
      ],
    );
    assert.deepEqual(dataset.problems.map(describeProblem), [
      `${join(dir, 'all.rttm')} line 2: the onset "oops" is not a number of seconds >= 0`,
      `${join(dir, 'all.rttm')} line 3: file id "zz" matches no sample id; its turns are not used`,
      `${join(dir, 'c.wav')}: the speaker turns end at 1.50 s but the audio is 1.00 s long`,
    ]);
  });

  it('a JSONL manifest: "turns", the Hugging Face "speakers"/"timestamps_start"/"timestamps_end" lists, an "rttm" path, or --rttm for the whole dataset', async () => {
    const dir = await tempDir();
    for (const name of ['a', 'b', 'c', 'd', 'e']) await writeFile(join(dir, `${name}.wav`), toneWav(2));
    await writeFile(join(dir, 'c.rttm'), 'SPEAKER c 1 0.25 0.5 <NA> <NA> X <NA> <NA>\n');
    await writeFile(join(dir, 'shared.rttm'), 'SPEAKER d 1 1 1 <NA> <NA> Y <NA> <NA>\nSPEAKER a 1 0 1 <NA> <NA> Z <NA> <NA>\n');
    const manifest = join(dir, 'set.jsonl');
    await writeFile(
      manifest,
      [
        '{"audio": "a.wav", "turns": [{"speaker": "B", "start": 1, "end": 1.5}, {"speaker": "A", "start": 0, "end": 1.2}]}',
        '{"audio": "b.wav", "speakers": ["S1", 2], "timestamps_start": [0.5, 0], "timestamps_end": [1, 0.25]}',
        '{"audio": "c.wav", "rttm": "c.rttm"}',
        '{"audio": "d.wav"}',
        '{"audio": "e.wav", "turns": [{"speaker": "A", "start": 1, "end": 0.5}]}',
        '{"audio": "e.wav", "id": "e2", "speakers": ["A"], "timestamps_start": [0, 1]}',
      ].join('\n'),
    );
    const dataset = await loadDataset(manifest, { rttm: join(dir, 'shared.rttm') });
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.turns]),
      [
        ['a', [turn('A', 0, 1200), turn('B', 1000, 1500)]],
        ['b', [turn('2', 0, 250), turn('S1', 500, 1000)]],
        ['c', [turn('X', 250, 750)]],
        ['d', [turn('Y', 1000, 2000)]],
      ],
    );
    assert.deepEqual(dataset.problems.map(describeProblem), [
      `${manifest} line 5: "turns" must be a list of {"speaker", "start", "end"} with end >= start (seconds)`,
      `${manifest} line 6: "timestamps_end" must be a list`,
    ]);
    const unread = await loadDataset(manifest, { rttm: join(dir, 'missing.rttm') }).catch((err: Error) => err.message);
    assert.equal(unread, `${join(dir, 'missing.rttm')}: cannot read the RTTM file (ENOENT)`);
  });

  it('a Hugging Face table: the speakers and timestamps list columns, or a turns column of structs', async () => {
    const dir = await tempDir();
    const audioType = new Struct([new Field('bytes', new Binary(), true), new Field('path', new Utf8(), true)]);
    const seconds = new List(new Field('item', new Float64(), true));
    const table = new Table({
      audio: vectorFromArray(
        [
          { bytes: toneWav(2), path: null },
          { bytes: toneWav(2), path: null },
        ],
        audioType,
      ),
      id: vectorFromArray(['r0', 'r1'], new Utf8()),
      speakers: vectorFromArray([['A', 'B'], ['A']], new List(new Field('item', new Utf8(), true))),
      timestamps_start: vectorFromArray([[0, 0.5], [0]], seconds),
      timestamps_end: vectorFromArray([[1, 1.5], [3]], seconds),
    });
    const file = join(dir, 'data.arrow');
    await writeFile(file, RecordBatchStreamWriter.writeAll(table.batches).toUint8Array(true));
    const dataset = await loadDataset(file);
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.turns]),
      [['r0', [turn('A', 0, 1000), turn('B', 500, 1500)]]],
    );
    assert.deepEqual(dataset.problems.map(describeProblem), [`${file} row 1: the speaker turns end at 3.00 s but the audio is 2.00 s long`]);
    const turnType = new Struct([new Field('speaker', new Utf8(), true), new Field('start', new Float64(), true), new Field('end', new Float64(), true)]);
    const structs = new Table({
      audio: vectorFromArray([{ bytes: toneWav(2), path: null }], audioType),
      turns: vectorFromArray(
        [
          [
            { speaker: 'B', start: 0.5, end: 1 },
            { speaker: 'A', start: 0, end: 0.75 },
          ],
        ],
        new List(new Field('item', turnType, true)),
      ),
    });
    const structFile = join(dir, 'structs.arrow');
    await writeFile(structFile, RecordBatchStreamWriter.writeAll(structs.batches).toUint8Array(true));
    assert.deepEqual((await loadDataset(structFile)).samples[0]!.turns, [turn('A', 0, 750), turn('B', 500, 1000)]);
  });

  it('inspect shows the speakers and the speech of each, and datasets without turns as before', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.wav'), toneWav(3));
    await writeFile(join(dir, 'a.rttm'), 'SPEAKER a 1 0 1.5 <NA> <NA> A <NA> <NA>\nSPEAKER a 1 1 1 <NA> <NA> B <NA> <NA>\n');
    await writeFile(join(dir, 'b.wav'), toneWav(3));
    await writeFile(join(dir, 'b.rttm'), 'SPEAKER b 1 0 0.25 <NA> <NA> A <NA> <NA>\n');
    const inspection = await inspectDataset(dir);
    assert.equal(inspection.summary.withSpeakerTurns, 2);
    assert.deepEqual(inspection.summary.speakers, { A: 1.75, B: 1 });
    const lines = renderInspection(inspection).split('\n');
    assert.ok(lines.includes('references   0 with text, 0 with word timings, 2 with speaker turns'), lines.join('\n'));
    assert.ok(lines.includes('speakers     2 labels: A 1.8 s, B 1.0 s'), lines.join('\n'));
    // --rttm reaches the loader from the command line; a bad line is listed and the dataset still inspects.
    const shared = join(await tempDir(), 'shared.rttm');
    await writeFile(shared, 'SPEAKER c 1 0 0.5 <NA> <NA> C <NA> <NA>\nSPEAKER c 1 0 0.5 <NA> <NA>\n');
    await writeFile(join(dir, 'c.wav'), toneWav(1));
    const cli = await runNode([CLI, 'dataset', 'inspect', dir, '--rttm', shared]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /\nsamples {6}3 usable, 0 skipped for problems,/);
    assert.match(
      cli.stdout,
      /\nspeakers {5}3 labels: A 1\.8 s, B 1\.0 s, C 0\.5 s\nproblems \(1\):\n {2}.*shared\.rttm line 2: an RTTM SPEAKER line needs 8 fields or more/,
    );
    const plain = await tempDir();
    await writeFile(join(plain, 'c.wav'), toneWav(1));
    const without = await inspectDataset(plain);
    assert.equal('speakers' in without.summary || 'withSpeakerTurns' in without.summary, false);
    assert.match(renderInspection(without), /0 with speaker turns\nproblems {5}none\n$/);
  });
});

describe('voxbench dataset synth --speakers', () => {
  const LINES = 'Good morning, how are you?\nVery well, thank you.\nShall we begin now?\nYes, let us start.\n';

  it('makes a two-speaker conversation whose RTTM matches its audio: sound where the turns say speech, silence elsewhere, the overlap and pause asked for', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'talk.txt'), LINES);
    const out = join(dir, 'set');
    const args = [
      CLI,
      'dataset',
      'synth',
      join(dir, 'talk.txt'),
      '--out',
      out,
      '--engine',
      'espeak-ng',
      '--speakers',
      '2',
      '--overlap-ms',
      '300',
      '--pause-ms',
      '400',
    ];
    const { code, stdout, stderr } = await runNode(args);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `wrote talk (4 turns) to ${out} (espeak-ng: spk1 en-us, spk2 en-gb+f3)\n`);
    const [sample, ...others] = (await loadDataset(out)).samples;
    assert.equal(others.length, 0);
    const { audio, turns, words, text } = sample!;
    assert.deepEqual(
      turns!.map((t) => t.speaker),
      ['spk1', 'spk2', 'spk1', 'spk2'],
    );
    const [t1, t2, t3, t4] = turns!;
    // The RTTM keeps milliseconds: the overlaps and the pause are as asked, to within its rounding.
    for (const [overlap, [a, b]] of [
      [300, [t1!, t2!]],
      [300, [t3!, t4!]],
    ] as const)
      assert.ok(Math.abs(a.endMs - b.startMs - overlap) <= 1, `overlap ${a.endMs - b.startMs}`);
    assert.ok(Math.abs(t3!.startMs - t2!.endMs - 400) <= 1, `pause ${t3!.startMs - t2!.endMs}`);
    // Every word lies in a turn of its speaker; the transcript is the words in the order they start.
    for (const w of words!)
      assert.ok(
        turns!.some((t) => t.speaker === w.speaker && t.startMs <= w.start * 1000 + 1 && w.end * 1000 - 1 <= t.endMs),
        w.word,
      );
    assert.equal(text, words!.map((w) => w.word).join(' '));
    assert.deepEqual([...new Set(words!.map((w) => w.word))].slice(0, 4), ['Good', 'morning', 'how', 'are']);
    // Energy: sound at both edges of each turn, and silence (up to 2 ms of resampler ringing) outside every turn.
    const at = (ms: number): number => Math.round((ms / 1000) * audio.sampleRate);
    const peak = (from: number, to: number): number => audio.samples.subarray(at(from), at(to)).reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    for (const t of turns!)
      assert.ok(peak(t.startMs, t.startMs + 5) > 0.0005 && peak(t.endMs - 5, t.endMs) > 0.0005, `sound at the edges of ${t.speaker} ${t.startMs}`);
    const edges = [0, ...[t1!.startMs, t2!.endMs, t3!.startMs, t4!.endMs], (audio.samples.length / audio.sampleRate) * 1000];
    for (let i = 0; i < edges.length; i += 2) assert.ok(peak(edges[i]! + 2, edges[i + 1]! - 2) < 0.002, `silence ${edges[i]}–${edges[i + 1]}`);
    assert.equal(await readFile(join(out, 'talk.rttm'), 'utf8'), formatRttm('talk', turns!));
  });

  it('refuses --overlap-ms and --pause-ms without a conversation, and too few voices for the speakers', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'talk.txt'), LINES);
    const synth = (...flags: string[]) =>
      runNode([CLI, 'dataset', 'synth', join(dir, 'talk.txt'), '--out', join(dir, 'out'), '--engine', 'espeak-ng', ...flags]);
    const alone = await synth('--pause-ms', '100');
    assert.deepEqual([alone.code, alone.stderr], [2, 'voxbench: error: --pause-ms applies to a conversation: add --speakers 2 or more\n']);
    const voices = await synth('--speakers', '3', '--voice', 'en-us,en-gb');
    assert.deepEqual([voices.code, voices.stderr], [2, 'voxbench: error: 3 speakers need 3 voices, and 2 were given (en-us, en-gb)\n']);
  });
});
