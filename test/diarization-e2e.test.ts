import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { loadDataset } from '../src/data/load.js';
import { DEEPGRAM } from '../src/dialects/deepgram/spec.js';
import { DIARIZE_MODEL } from '../src/dialects/openai/simulated.js';
import { SPEECHMATICS } from '../src/dialects/speechmatics/spec.js';
import { synthesizeConversation } from '../src/data/synth.js';
import { renderSummary } from '../src/report/console.js';
import { readReport } from '../src/report/recompute.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { run, type RunOptions } from '../src/run/run.js';
import { DEFAULT_SPEAKER_ERRORS, type SpeakerErrors } from '../src/server/models/speakers.js';
import { DEFAULT_RULES, describeRules } from '../src/metrics/diarization/rules.js';
import { CLI, runNode, tempDir, testServer } from './helpers.js';

/**
 * Who spoke when, end to end: a synthesized two-speaker conversation (espeak-ng, one
 * overlap and one pause) streamed to the simulated server, which labels each word's
 * speaker from the reference turns; the run scores the labels it got back.
 */
/** At the file's level, so the folder lasts until the file ends. */
const dir = await tempDir();

describe('diarization end to end: a synthesized conversation against the simulated server', () => {
  let data: string;
  before(async () => {
    await writeFile(
      join(dir, 'talk.txt'),
      'Good morning, how are you today?\nVery well, thank you for asking.\nShall we begin the meeting now?\nYes, let us start right away.\n',
    );
    data = join(dir, 'set');
    await mkdir(data);
    await synthesizeConversation(join(dir, 'talk.txt'), { out: data, engine: 'espeak-ng', speakers: 2, overlapMs: 300, pauseMs: 600 });
  });

  const benchmark = async (protocol: 'deepgram' | 'speechmatics', speakers: SpeakerErrors, diarization: RunOptions['diarization'] = {}) => {
    const { samples } = await loadDataset(data);
    const server = await testServer({ references: samples, speakers });
    const target = new URL(server.url).origin.replace(/^http/, 'ws');
    const model = (protocol === 'deepgram' ? DEEPGRAM : SPEECHMATICS).defaultModel;
    const { report } = await run({ protocol, model, target, data, maxSessions: 1, pace: { kind: 'none' }, diarization });
    return { ...report.benchmarks[0]!, config: report.config, console: renderSummary(report), markdown: renderMarkdown(report) };
  };

  for (const protocol of ['deepgram', 'speechmatics'] as const) {
    it(`${protocol}: DER 0 when every label is right, above 0 with confusion; the reference turns and the labelled words are in the timeline`, async () => {
      const right = await benchmark(protocol, DEFAULT_SPEAKER_ERRORS);
      const session = right.sessions[0]!;
      assert.equal(session.outcome.status, 'completed');
      const input = session.timeline.inputs[0]!;
      assert.equal(input.kind === 'audio' && input.turns?.length, 4, 'the input carries its four reference turns');
      const labels = new Set(session.timeline.received.flatMap((e) => e.words ?? []).map((w) => w.speaker));
      assert.equal(labels.size, 2, `two speaker labels: ${[...labels].join(', ')}`);
      const figures = session.metrics.session;
      // Word times reach the server as 16 kHz samples and the RTTM keeps milliseconds: zero to within that rounding.
      assert.ok(figures.der !== undefined && figures.der < 0.001, `DER ${figures.der}`);
      assert.ok(figures.jer !== undefined && figures.jer < 0.001, `JER ${figures.jer}`);
      assert.equal(figures.word_speaker_error, 0, 'word speaker error');
      assert.equal(figures.speaker_relabelled, 0, 'the simulated server never relabels a word');

      assert.equal(right.config.diarization?.description, describeRules(DEFAULT_RULES), 'the report records the rules');
      assert.match(right.config.diarization?.matches.der[0] ?? '', /^pyannote\.metrics DiarizationErrorRate\(collar=0, skip_overlap=False\)/);

      // md-eval's rules: a 250 ms collar each side, overlap skipped, speakers paired before either is taken out.
      const confused = await benchmark(
        protocol,
        { confusion: 0.3, boundaryMs: 0 },
        { collarMs: 250, collarPer: 'side', overlap: 'skipped', mapping: 'whole-region' },
      );
      assert.deepEqual(confused.config.diarization?.matches.der, ['dscore --collar 0.25 --ignore_overlaps (md-eval.pl -c 0.25 -1)']);
      const wrong = confused.sessions[0]!.metrics.session;
      assert.ok(typeof wrong.der === 'number' && wrong.der > 0, `DER ${wrong.der}`);
      assert.ok(typeof wrong.der_confusion === 'number' && wrong.der_confusion > 0, `confusion ${wrong.der_confusion}`);
      assert.ok(typeof wrong.word_speaker_error === 'number' && wrong.word_speaker_error > 0.05, `word speaker error ${wrong.word_speaker_error}`);
      assert.equal(confused.summary.corpus['corpus_der'], wrong.der, 'one session: the corpus is the session');
      const pooled = confused.summary.diarization;
      assert.equal(pooled?.der, wrong.der);
      assert.ok(pooled?.derCi95 !== undefined && pooled.wordSpeakerError.value === wrong.word_speaker_error, 'the corpus figures with their intervals');
      assert.match(confused.console, /\nspeakers: corpus DER [1-9][\d.]*% \(95% CI /);
      assert.match(
        confused.console,
        /\nspeaker scoring: collar ±250 ms around each reference boundary \(500 ms in all\); overlapped speech skipped;.*; matches dscore --collar 0\.25 --ignore_overlaps/,
      );
      assert.match(
        confused.markdown,
        /\n\| level \| inputs \| DER \| missed \| false alarm \| confusion \| JER \| word speaker error \| relabelled \|\n.*\n\| synchronous \| 1 \| [1-9]/,
      );
    });
  }

  // gpt-4o-transcribe-diarize gives no word times: each diarized segment is one labelled span.
  for (const stream of [false, true]) {
    it(`openai-transcriptions gpt-4o-transcribe-diarize, diarized_json${stream ? ' streamed' : ''}: segments with speakers score DER 0, above 0 with confusion`, async () => {
      const { samples } = await loadDataset(data);
      const batch = async (speakers: SpeakerErrors) => {
        const server = await testServer({ references: samples, speakers });
        const transcription = { responseFormat: 'diarized_json', stream } as const;
        const { report } = await run({
          protocol: 'openai-transcriptions',
          model: DIARIZE_MODEL,
          target: server.origin,
          data,
          maxSessions: 1,
          transcription,
        });
        return report.benchmarks[0]!.sessions[0]!;
      };
      const right = await batch(DEFAULT_SPEAKER_ERRORS);
      assert.equal(right.outcome.status, 'completed');
      const spans = right.timeline.received.flatMap((e) => (e.words ?? []).map((w) => ({ ...w, type: e.type })));
      assert.deepEqual(
        spans.map((w) => w.speaker),
        ['A', 'B', 'A', 'B'],
        'one segment a reference turn, speakers named A, B in the order heard',
      );
      assert.ok(
        spans.every((w) => w.type === (stream ? 'transcript.text.segment' : 'transcription')),
        stream ? 'segment events' : 'the body',
      );
      const figures = right.metrics.session;
      assert.ok(figures.der !== undefined && figures.der < 0.001, `DER ${figures.der}`);
      assert.ok(figures.jer !== undefined && figures.jer < 0.001, `JER ${figures.jer}`);
      assert.equal(figures.word_speaker_error, 0, 'every segment with its speaker');

      const wrong = (await batch({ confusion: 0.3, boundaryMs: 0 })).metrics.session;
      assert.ok(typeof wrong.der === 'number' && wrong.der > 0, `DER ${wrong.der}`);
      assert.ok(typeof wrong.der_confusion === 'number' && wrong.der_confusion > 0, `confusion ${wrong.der_confusion}`);
    });
  }

  it('report render --der-* scores the stored labels again under other rules, keeping the rules not given', async () => {
    const { samples } = await loadDataset(data);
    const server = await testServer({ references: samples, speakers: { confusion: 0, boundaryMs: 400 } });
    const target = new URL(server.url).origin.replace(/^http/, 'ws');
    const outputDir = join(dir, 'late');
    await run({
      protocol: 'deepgram',
      model: DEEPGRAM.defaultModel,
      target,
      data,
      maxSessions: 1,
      pace: { kind: 'none' },
      outputDir,
      diarization: { overlap: 'skipped' },
    });
    const late = (await readReport(outputDir)).benchmarks[0]!.summary.diarization!;
    assert.ok(late.confusion !== null && late.confusion > 0, `speaker changes noticed late are confusion: ${late.confusion}`);
    const { code, stdout, stderr } = await runNode([CLI, 'report', 'render', outputDir, '--der-collar-ms', '1000', '--der-collar-per', 'side']);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /\nspeaker scoring: collar ±1000 ms around each reference boundary \(2000 ms in all\); overlapped speech skipped;/);
    const collared = (await readReport(outputDir)).benchmarks[0]!.summary.diarization!;
    assert.ok(collared.confusion! < late.confusion, `a collar takes out the boundaries: ${collared.confusion} < ${late.confusion}`);
  });

  it('refuses a rule value it does not know in one line naming the flag', async () => {
    const { code, stderr } = await runNode([CLI, 'run', '--der-overlap', 'maybe', '--max-sessions', '1']);
    assert.deepEqual([code, stderr], [2, 'voxbench: error: --der-overlap must be scored or skipped, got "maybe"\n']);
    const collar = await runNode([CLI, 'run', '--der-collar-per', 'each', '--max-sessions', '1']);
    assert.equal(collar.stderr, 'voxbench: error: --der-collar-per must be total or side, got "each"\n');
  });
});
