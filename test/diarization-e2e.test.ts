import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { loadDataset } from '../src/data/load.js';
import { DEEPGRAM } from '../src/dialects/deepgram/spec.js';
import { DIARIZE_MODEL } from '../src/dialects/openai/spec.js';
import { SPEECHMATICS } from '../src/dialects/speechmatics/spec.js';
import { synthesizeConversation } from '../src/data/synth.js';
import { renderSummary } from '../src/report/console.js';
import { readReport } from '../src/report/recompute.js';
import { renderMarkdown } from '../src/report/markdown.js';
import type { Report } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import { DEFAULT_SPEAKER_ERRORS, type SpeakerErrors } from '../src/server/models/speakers.js';
import { DEFAULT_RULES, describeRules } from '../src/metrics/diarization/rules.js';
import type { SessionTimeline, SpeakerTurn } from '../src/timeline/types.js';
import { CLI, runNode, tempDir, testServer } from './helpers.js';

/**
 * Who spoke when, end to end: a synthesized two-speaker conversation (espeak-ng, one
 * overlap and one pause) streamed to the simulated server, which labels each word's
 * speaker from the reference turns; the run scores the labels it got back.
 */
/** At the file's level, so the folder lasts until the file ends. */
const dir = await tempDir();

/**
 * An independent scorer, sharing no code with voxbench's: each word's last lasting label
 * (by its start), the words joined into turns split at each change of speaker and at a
 * pause of 500 ms, then DER's parts under pyannote.metrics' defaults by sweeping every
 * boundary and trying every pairing of speakers.
 */
function independentDer(timeline: SessionTimeline): { missedMs: number; falseAlarmMs: number; confusionMs: number; scoredMs: number } {
  const finals = new Map<number, SpeakerTurn>();
  for (const event of timeline.received) {
    if (event.provisional) continue;
    for (const w of event.words ?? []) {
      if (w.speaker === undefined || w.speaker === 'UU' || w.startMs === undefined || w.endMs === undefined) continue;
      finals.set(w.startMs, { speaker: w.speaker, startMs: w.startMs, endMs: w.endMs });
    }
  }
  const hypothesis: SpeakerTurn[] = [];
  for (const w of [...finals.values()].sort((a, b) => a.startMs - b.startMs)) {
    const last = hypothesis[hypothesis.length - 1];
    if (last?.speaker === w.speaker && w.startMs - last.endMs < 500) last.endMs = Math.max(last.endMs, w.endMs);
    else hypothesis.push({ ...w });
  }
  const reference = timeline.inputs.flatMap((i) => (i.kind === 'audio' ? (i.turns ?? []) : []));
  const names = (turns: SpeakerTurn[]) => [...new Set(turns.map((t) => t.speaker))];
  const [refNames, hypNames] = [names(reference), names(hypothesis)];
  const talking = (turns: SpeakerTurn[], who: string[], at: number) =>
    who.flatMap((name, i) => (turns.some((t) => t.speaker === name && t.startMs <= at && at < t.endMs) ? [i] : []));
  const bounds = [...new Set([...reference, ...hypothesis].flatMap((t) => [t.startMs, t.endMs]))].sort((a, b) => a - b);
  const together = refNames.map(() => hypNames.map(() => 0));
  let [scoredMs, missedMs, falseAlarmMs, matchable] = [0, 0, 0, 0];
  for (let k = 1; k < bounds.length; k++) {
    const [from, to] = [bounds[k - 1]!, bounds[k]!];
    const [r, h] = [talking(reference, refNames, (from + to) / 2), talking(hypothesis, hypNames, (from + to) / 2)];
    const ms = to - from;
    scoredMs += r.length * ms;
    missedMs += Math.max(0, r.length - h.length) * ms;
    falseAlarmMs += Math.max(0, h.length - r.length) * ms;
    matchable += Math.min(r.length, h.length) * ms;
    for (const i of r) for (const j of h) together[i]![j]! += ms;
  }
  const best = (i: number, used: Set<number>): number => {
    if (i === refNames.length) return 0;
    let most = best(i + 1, used);
    for (let j = 0; j < hypNames.length; j++) {
      if (used.has(j)) continue;
      most = Math.max(most, together[i]![j]! + best(i + 1, new Set([...used, j])));
    }
    return most;
  };
  return { scoredMs, missedMs, falseAlarmMs, confusionMs: matchable - best(0, new Set()) };
}

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
        { ...DEFAULT_SPEAKER_ERRORS, confusion: 0.3, boundaryMs: 0 },
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
        /\n\| level \| inputs \| without labels \| DER \| missed \| false alarm \| confusion \| JER \| word speaker error \| relabelled \|\n.*\n\| synchronous \| 1 \| 0 \| [1-9]/,
      );
    });
  }

  it("deepgram, a fifth of the words given another speaker: most of the error is confusion, and DER is an independent scorer's on turns split at each change of speaker", async () => {
    const run = await benchmark('deepgram', { ...DEFAULT_SPEAKER_ERRORS, confusion: 0.2 });
    const session = run.sessions[0]!;
    const figures = session.metrics.session;
    const { missedMs, falseAlarmMs, confusionMs, scoredMs } = independentDer(session.timeline);
    assert.ok(confusionMs > missedMs + falseAlarmMs, `independently: missed ${missedMs} + false alarm ${falseAlarmMs} + confusion ${confusionMs} ms`);
    const close = (actual: number | undefined, expected: number, what: string) =>
      assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
    close(figures.der, (missedMs + falseAlarmMs + confusionMs) / scoredMs, 'DER');
    close(figures.der_confusion, confusionMs / scoredMs, 'confusion');
    close(figures.der_false_alarm, falseAlarmMs / scoredMs, 'false alarm');
    close(figures.der_missed, missedMs / scoredMs, 'missed');
    assert.ok(figures.der_confusion! > figures.der_missed! + figures.der_false_alarm!, 'most of the error is confusion');
  });

  for (const protocol of ['deepgram', 'speechmatics'] as const) {
    it(`${protocol}: a server that re-times words by 20 ms between partial and final and shows other speakers first has its relabels measured; the final labels are scored`, async () => {
      const revised = await benchmark(protocol, { ...DEFAULT_SPEAKER_ERRORS, relabel: 1, retimeMs: 20 });
      const session = revised.sessions[0]!;
      const partialStarts = session.timeline.received.filter((e) => e.provisional).flatMap((e) => e.words ?? []);
      assert.ok(partialStarts.length > 0, 'partials carry words');
      const figures = session.metrics.session;
      // Every word shown in a partial after the second speaker was first heard is relabelled: most words.
      assert.ok(figures.speaker_relabelled !== undefined && figures.speaker_relabelled > 0.3, `relabelled ${figures.speaker_relabelled}`);
      assert.ok(figures.der !== undefined && figures.der < 0.001, `DER ${figures.der}`);
      assert.equal(figures.word_speaker_error, 0);
    });
  }

  it("speechmatics, a third of the words left UU: their speech is missed, no word is counted wrong, and DER is the independent scorer's", async () => {
    const run = await benchmark('speechmatics', { ...DEFAULT_SPEAKER_ERRORS, unlabelled: 0.3 });
    const session = run.sessions[0]!;
    const words = session.timeline.received.filter((e) => !e.provisional).flatMap((e) => e.words ?? []);
    assert.ok(words.some((w) => w.speaker === 'UU') && words.some((w) => w.speaker !== 'UU'), 'some words UU, some labelled');
    const figures = session.metrics.session;
    const { missedMs, falseAlarmMs, confusionMs, scoredMs } = independentDer(session.timeline);
    assert.ok(figures.der_missed !== undefined && figures.der_missed > 0.05, `missed ${figures.der_missed}`);
    assert.ok(Math.abs(figures.der! - (missedMs + falseAlarmMs + confusionMs) / scoredMs) < 1e-9, `DER ${figures.der}`);
    assert.equal(figures.word_speaker_error, 0);
  });

  it('openai-transcriptions gpt-4o-transcribe-diarize, two different conversations per batch session (each request from 0 ms), every label right: DER under 0.1%', async () => {
    const two = join(dir, 'two');
    await mkdir(two);
    await writeFile(join(dir, 'other.txt'), 'Where did you park the car?\nNear the station, by the river.\nThen we should walk.\n');
    await synthesizeConversation(join(dir, 'talk.txt'), { out: two, engine: 'espeak-ng', speakers: 2, overlapMs: 300, pauseMs: 600 });
    await synthesizeConversation(join(dir, 'other.txt'), { out: two, engine: 'espeak-ng', speakers: 2, overlapMs: 0, pauseMs: 400 });
    const { samples } = await loadDataset(two);
    const server = await testServer({ references: samples });
    const { report } = await run({
      protocol: 'openai-transcriptions',
      model: DIARIZE_MODEL,
      target: server.origin,
      data: two,
      maxSessions: 1,
      turnsPerSession: 2,
      transcription: { responseFormat: 'diarized_json' },
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.equal(session.timeline.inputs.length, 2);
    const figures = session.metrics.session;
    assert.ok(figures.der !== undefined && figures.der < 0.001, `DER ${figures.der}`);
    assert.equal(figures.word_speaker_error, 0);
    assert.equal(report.benchmarks[0]!.summary.diarization?.recordings, 2, 'both inputs scored');
  });

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

      const wrong = (await batch({ ...DEFAULT_SPEAKER_ERRORS, confusion: 0.3, boundaryMs: 0 })).metrics.session;
      assert.ok(typeof wrong.der === 'number' && wrong.der > 0, `DER ${wrong.der}`);
      assert.ok(typeof wrong.der_confusion === 'number' && wrong.der_confusion > 0, `confusion ${wrong.der_confusion}`);
    });
  }

  it('report render --der-* scores the stored labels again under other rules, keeping the rules not given', async () => {
    const { samples } = await loadDataset(data);
    const server = await testServer({ references: samples, speakers: { ...DEFAULT_SPEAKER_ERRORS, confusion: 0, boundaryMs: 400 } });
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
    // A report an older voxbench wrote keeps its rules; the figures are scored again, so they are described as this voxbench scores them.
    const file = join(outputDir, 'report.json');
    const stored = JSON.parse(await readFile(file, 'utf8')) as Report;
    await writeFile(
      file,
      JSON.stringify({ ...stored, config: { ...stored.config, diarization: { ...stored.config.diarization!, description: 'older words' } } }),
    );
    assert.equal((await readReport(outputDir)).config.diarization?.description, describeRules(stored.config.diarization!.rules));
  });

  it('refuses a rule value it does not know in one line naming the flag', async () => {
    const { code, stderr } = await runNode([CLI, 'run', '--der-overlap', 'maybe', '--max-sessions', '1']);
    assert.deepEqual([code, stderr], [2, 'voxbench: error: --der-overlap must be scored or skipped, got "maybe"\n']);
    const collar = await runNode([CLI, 'run', '--der-collar-per', 'each', '--max-sessions', '1']);
    assert.equal(collar.stderr, 'voxbench: error: --der-collar-per must be total or side, got "each"\n');
  });
});
