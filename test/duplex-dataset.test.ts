import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadDataset } from '../src/data/load.js';
import { run } from '../src/run/run.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { toneWav, writeArrowShard, writeParquetShard, type AudioCell, type Columns } from './data-fixtures.js';
import { recordingRelay, tempDir, testServer } from './helpers.js';

const cell = (bytes: Uint8Array | null, path: string | null): AudioCell => ({ bytes, path });
const question = await Promise.all(['harvard-01', 'harvard-02'].map((name) => readFile(join(BUNDLED_SAMPLES_DIR, `${name}.wav`))));
const VOICE = toneWav(0.5, { hz: 220 });

/**
 * Rows as vLLM-Omni's duplex eval datasets have them: `sample_id`, a `split` column,
 * the question as audio and text, instructions and a reference voice. The reference
 * voice's column comes first and is typed Audio too, so the question audio must not be
 * taken for it. The third row's reference voice is not audio.
 */
const ROWS: Columns = {
  ref_audio: [cell(VOICE, 'voice.wav'), cell(null, null), cell(new TextEncoder().encode('not audio at all'), 'bad.wav')],
  sample_id: ['q1', 'q2', 'q3'],
  split: ['test', 'test', 'dev'],
  question_audio: [cell(question[0]!, 'q1.wav'), cell(question[1]!, 'q2.wav'), cell(question[0]!, 'q3.wav')],
  question_text: ['The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.', 'The birch canoe slid on the smooth planks.'],
  instructions: ['Answer in one sentence.', null, 'Be brief.'],
};

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
/** The sessions of the `session.update` events a relay saw. */
const updates = (relay: { sent: Array<Record<string, unknown>> }) =>
  relay.sent.filter((e) => e.type === 'session.update').map((e) => e.session as Record<string, unknown>);

describe('duplex samples from Hugging Face tables', () => {
  it('Parquet and Arrow rows: sample_id, the split column, instructions and the reference voice read with the audio; a reference that is not audio skips its row', async () => {
    const root = await tempDir();
    writeParquetShard(join(root, 'duplex.parquet'), ROWS);
    writeArrowShard(join(root, 'duplex.arrow'), ROWS);
    for (const file of ['duplex.parquet', 'duplex.arrow']) {
      const dataset = await loadDataset(join(root, file));
      assert.deepEqual(
        dataset.samples.map((s) => [s.id, s.split, s.text, s.instructions, s.referenceAudio && base64(s.referenceAudio), s.audio.sampleRate]),
        [
          ['q1', 'test', 'The birch canoe slid on the smooth planks.', 'Answer in one sentence.', base64(VOICE), 16000],
          ['q2', 'test', 'Glue the sheet to the dark blue background.', undefined, undefined, 16000],
        ],
        file,
      );
      assert.equal(dataset.samples[0]!.audio.samples.length, 44_720, `${file}: the question audio, not the reference voice`);
      assert.deepEqual(
        dataset.problems.map((p) => [p.row, p.reason]),
        [[2, 'the reference audio: not a recognised audio file; voxbench reads WAV, FLAC, MP3, Ogg Vorbis, Opus']],
        file,
      );
      await assert.rejects(
        loadDataset(join(root, file), { split: 'dev' }),
        /no usable samples; 1 skipped .*; 2 left out by the selection options$/,
        `${file}: the split column filters`,
      );
    }
  });

  it('the instructions and reference voice also count in the fingerprint, so a resumed run cannot mix them', async () => {
    const root = await tempDir();
    const other = { ...ROWS, instructions: ['Answer in two sentences.', null, 'Be brief.'] };
    writeParquetShard(join(root, 'a.parquet'), ROWS);
    writeParquetShard(join(root, 'b.parquet'), other);
    const [a, b] = await Promise.all([loadDataset(join(root, 'a.parquet')), loadDataset(join(root, 'b.parquet'))]);
    assert.notEqual(a.fingerprint, b.fingerprint);
  });

  it("end to end: each row's instructions and reference voice reach its session's session.update (vllm-omni-duplex), the run's instructions the rows without", async () => {
    const root = await tempDir();
    const file = join(root, 'duplex.parquet');
    writeParquetShard(file, ROWS);
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, generationRtf: 0.1 } });
    const relay = await recordingRelay(server.url);
    const { report } = await run({
      target: relay.url,
      protocol: 'vllm-omni-duplex',
      model: 'openbmb/MiniCPM-o-4_5',
      data: file,
      dataset: { split: 'test' },
      instructions: 'Be kind.',
      maxSessions: 2,
      pace: { kind: 'realtime', speed: 8 },
    });
    assert.deepEqual(
      report.benchmarks[0]!.sessions.map((s) => s.outcome.status),
      ['completed', 'completed'],
    );
    const seen = updates(relay)
      .map((u) => [u.instructions, u.ref_audio])
      .sort();
    assert.deepEqual(seen, [
      ['Answer in one sentence.', `data:audio/wav;base64,${base64(VOICE)}`],
      ['Be kind.', undefined],
    ]);
  });

  it('a JSONL row names the same fields, and its ref_audio file reaches session.update the same way; a missing one skips the row', async () => {
    const root = await tempDir();
    await writeFile(join(root, 'voice.wav'), VOICE);
    await writeFile(join(root, 'q1.wav'), question[0]!);
    const rows = [
      { sample_id: 'q1', split: 'test', question_audio: 'q1.wav', instructions: 'Answer in one sentence.', ref_audio: 'voice.wav' },
      { sample_id: 'q2', split: 'test', question_audio: 'q1.wav', ref_audio: 'gone.wav' },
    ];
    await writeFile(join(root, 'duplex.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n'));
    const dataset = await loadDataset(join(root, 'duplex.jsonl'));
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.instructions, s.referenceAudio && base64(s.referenceAudio)]),
      [['q1', 'Answer in one sentence.', base64(VOICE)]],
    );
    assert.deepEqual(
      dataset.problems.map((p) => [p.line, p.reason]),
      [[2, `the reference audio file ${join(root, 'gone.wav')} does not exist`]],
    );
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, generationRtf: 0.1 } });
    const relay = await recordingRelay(server.url);
    const { report } = await run({
      target: relay.url,
      protocol: 'openai-realtime',
      model: 'gpt-realtime',
      data: join(root, 'duplex.jsonl'),
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
    });
    assert.equal(report.benchmarks[0]!.sessions[0]!.outcome.status, 'completed');
    assert.deepEqual(
      updates(relay).map((u) => u.instructions),
      ['Answer in one sentence.'],
      'OpenAI takes the instructions, and no reference voice',
    );
  });
});
