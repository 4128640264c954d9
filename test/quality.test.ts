import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interval95, pooledRatioInterval, resample, RESAMPLES } from '../src/metrics/bootstrap.js';
import { computeSessionMetrics, summarizeBenchmark } from '../src/metrics/compute.js';
import { findNormalizer, normalizerById } from '../src/metrics/normalizers/index.js';
import { errorRate, transcriptErrors } from '../src/metrics/wer.js';
import { drawIndices, seededRandom, skipDraws } from '../src/util/random.js';
import { buildHeldBenchmark } from '../src/report/build.js';
import { compareReports, renderComparison } from '../src/report/compare.js';
import { renderSummary } from '../src/report/console.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { readReport, recompute } from '../src/report/recompute.js';
import type { HeldReport } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import type { SessionRecord } from '../src/timeline/types.js';
import { fromV1 } from '../src/timeline/v1.js';
import { CLI, runNode, tempDir } from './helpers.js';

const basic = normalizerById('voxbench-basic-2');

/** A one-turn session that heard `heard` for `reference`, in `split` and `language`. */
function record(index: number, reference: string, heard: string, { split = 'test', language }: { split?: string; language?: string } = {}): SessionRecord {
  const timeline = fromV1({
    turnDetection: 'client',
    turns: [
      {
        turn: 0,
        sampleId: `s${index}`,
        split,
        reference,
        ...(language ? { language } : {}),
        audioStartMs: 0,
        speechStartMs: 0,
        speechEndMs: 90,
        eosSource: 'label',
        audioEndMs: 100,
      },
    ],
    plannedStartMs: 0,
    connectStartMs: 0,
    openMs: 1,
    firstEventMs: 2,
    readyMs: 2,
    chunks: [{ seq: 0, turn: 0, plannedMs: 3, sentMs: 3, audioStartMs: 0, audioEndMs: 100, bytes: 100 }],
    commits: [
      { turn: 0, kind: 'start', sentMs: 2 },
      { turn: 0, kind: 'final', sentMs: 4 },
    ],
    updates: [],
    events: [{ t: 50, type: 'transcription.done', kind: 'transcript_final', turn: 0, text: heard }],
    close: { t: 60, code: 1000, reason: '', by: 'client' },
    bytesSent: 100,
    bytesReceived: 10,
    framesSent: 3,
    framesReceived: 1,
  });
  return { index, sampleIds: [`s${index}`], split, timeline, outcome: { status: 'completed' } };
}

describe('word and character errors', () => {
  it('counts substitutions, deletions and insertions exactly, over words and over characters', () => {
    const cat = transcriptErrors('The cat sat on the mat.', 'the cat sit on mat', basic);
    assert.deepEqual(cat.words, { substitutions: 1, deletions: 1, insertions: 0, words: 6 });
    assert.deepEqual(cat.chars, { substitutions: 1, deletions: 4, insertions: 0, chars: 22 }, '"sat" → "sit", and "the " gone');
    assert.equal(errorRate(cat.words), 2 / 6);
    assert.equal(errorRate(cat.chars), 5 / 22);
    const kitten = transcriptErrors('kitten', 'sitting', basic);
    assert.deepEqual(kitten.words, { substitutions: 1, deletions: 0, insertions: 0, words: 1 });
    assert.deepEqual(kitten.chars, { substitutions: 2, deletions: 0, insertions: 1, chars: 6 });
    assert.deepEqual(transcriptErrors('a b', 'a x b y', basic).words, { substitutions: 0, deletions: 0, insertions: 2, words: 2 });
    assert.deepEqual(transcriptErrors('a b', '', basic).chars, { substitutions: 0, deletions: 3, insertions: 0, chars: 3 });
  });

  it('scores what the normalizer says is the same as no error', () => {
    const english = findNormalizer('whisper-english')!;
    const said = transcriptErrors("I won't pay twenty dollars, um, for the colour.", 'i will not pay $20 for the color', english);
    assert.deepEqual(said.words, { substitutions: 0, deletions: 0, insertions: 0, words: 8 });
    assert.equal(said.normalizer, 'whisper-english-1');
    assert.ok(
      errorRate(transcriptErrors("I won't pay twenty dollars", 'i will not pay $20', basic).words)! > 0.5,
      'voxbench-basic-2 has no number or contraction rules',
    );
  });

  it('aligns long recordings in bounded memory', () => {
    const text = 'the quick brown fox jumps over the lazy dog '.repeat(100);
    const errors = transcriptErrors(text, text.replace(/fox/g, 'cat'), basic);
    assert.equal(errors.chars.chars, text.trim().length);
    assert.deepEqual([errors.chars.substitutions, errors.words.substitutions], [300, 100]);
  });
});

describe('corpus quality in the summary', () => {
  const records = [
    record(0, 'Hello there.', 'hello there', { split: 'dev', language: 'en' }),
    record(1, 'The cat sat on the mat.', 'the cat sit on mat', { split: 'test', language: 'en' }),
    record(2, 'bonjour tout le monde', 'bonjour le monde entier', { split: 'test', language: 'fr' }),
    record(3, 'twenty dollars', '$20'),
  ];
  const measured = records.map(() => 'measured' as const);

  it('pools edits over turns, per split and per language, with the normalizer each used', () => {
    const benchmark = buildHeldBenchmark(
      { profile: { kind: 'synchronous' }, startMs: 0, endMs: 100, eventLoopDelay: { meanMs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 }, capHits: 0, records },
      { window: {}, slos: [], pricing: null, normalizer: 'auto' },
    );
    const q = benchmark.summary.quality;
    assert.deepEqual(
      benchmark.sessions.map((s) => s.timeline.inputs[0]!.kind === 'audio' && s.timeline.inputs[0]!.normalizer),
      ['whisper-english-1', 'whisper-english-1', 'whisper-basic-1', 'whisper-english-1'],
    );
    // whisper-english reads "twenty dollars" as one word, $20, which is what was heard.
    assert.deepEqual([q.turns, q.substitutions, q.deletions, q.insertions, q.referenceWords], [4, 1, 2, 1, 2 + 6 + 4 + 1]);
    assert.equal(q.wer, 4 / 13);
    assert.equal(q.normalizer, 'whisper-basic-1, whisper-english-1');
    assert.deepEqual(q.bySplit, {
      dev: { normalizer: 'whisper-english-1', turns: 1, wer: 0, cer: 0, referenceWords: 2 },
      test: { normalizer: 'whisper-basic-1, whisper-english-1', turns: 3, wer: 4 / 11, cer: q.bySplit.test!.cer, referenceWords: 11 },
    });
    assert.deepEqual(Object.keys(q.byLanguage), ['en', 'fr', 'unlabelled']);
    assert.deepEqual([q.byLanguage.en!.wer, q.byLanguage.fr!.wer, q.byLanguage.unlabelled!.wer], [2 / 8, 2 / 4, 0]);
    assert.equal(q.byLanguage.fr!.normalizer, 'whisper-basic-1');
    assert.equal(benchmark.summary.corpus.corpus_wer, q.wer);
    assert.equal(benchmark.summary.corpus.corpus_cer, q.cer);
    assert.equal(q.cer, (q.chars.substitutions + q.chars.deletions + q.chars.insertions) / q.chars.reference);
    const [lo, hi] = q.werCi95!;
    assert.ok(lo <= q.wer && q.wer <= hi && lo < hi, `${lo} ≤ ${q.wer} ≤ ${hi}`);
    assert.deepEqual(benchmark.sessions[1]!.metrics.inputs[0]!.word_substitutions, 1);
  });

  it('keeps the normalizer a report recorded when no choice is given (reports from before the choice)', () => {
    const summary = summarizeBenchmark(records, measured, []);
    assert.equal(summary.quality.normalizer, 'voxbench-basic-2');
    assert.equal(summary.quality.wer, (0 + 2 + 2 + 2) / 14, 'no number rules: "twenty dollars" against "20" is a substitution and a deletion');
    assert.equal(
      computeSessionMetrics(records[2]!.timeline).inputs[0]!.cer,
      errorRate(transcriptErrors('bonjour tout le monde', 'bonjour le monde entier', basic).chars),
    );
  });

  it('draws the same bootstrap interval every time from the same seed, and another from another', () => {
    const errors = [0, 3, 1, 5, 2, 0, 4];
    const words = [10, 12, 8, 20, 9, 7, 15];
    const a = pooledRatioInterval(errors, words, 1);
    assert.deepEqual(pooledRatioInterval(errors, words, 1), a);
    assert.notDeepEqual(pooledRatioInterval(errors, words, 2), a);
    assert.deepEqual(pooledRatioInterval([1, 2, 3], [10, 20, 30], 1), [0.1, 0.1], 'every turn at 10%: no spread');
    assert.equal(pooledRatioInterval([], [], 1), null);
    // The draws are those of the seeded generator, resampling the turns with replacement.
    const random = seededRandom(1);
    const draws = Array.from({ length: RESAMPLES }, () => {
      const picked = resample([...errors.keys()], random);
      return picked.reduce((n, k) => n + errors[k]!, 0) / picked.reduce((n, k) => n + words[k]!, 0);
    });
    assert.deepEqual(a, interval95(draws));
    const summaries = [0, 1].map(() => summarizeBenchmark(records, measured, []).quality.werCi95);
    assert.deepEqual(summaries[0], summaries[1]);
  });

  it('draws the same interval with a helper thread drawing the last resamples, starting where the generator would be', () => {
    // Uneven units, so that a resample drawn from the wrong place in the generator's sequence moves the interval.
    const errors = Array.from({ length: 3000 }, (_, i) => (i % 17 === 0 ? 40 : i % 3));
    const words = Array.from({ length: 3000 }, (_, i) => 5 + (i % 11));
    const alone = pooledRatioInterval(errors, words, 1, Infinity);
    assert.deepEqual(pooledRatioInterval(errors, words, 1, 1000), alone);
    assert.notDeepEqual(pooledRatioInterval(errors, words, 2, 1000), alone);
    // Skipping draws lands where drawing them does, past 2^32 draws included.
    const picks = new Uint32Array(1234);
    assert.equal(skipDraws(7, picks.length), drawIndices(7, picks, 10));
    assert.equal(skipDraws(skipDraws(7, 2 ** 32 - 5), 1234 + 5), skipDraws(7, 1234));
  });
});

describe('quality across runs', () => {
  /** The report with every final transcript missing its last word. */
  const worse = (report: HeldReport): HeldReport =>
    recompute({
      ...report,
      benchmarks: report.benchmarks.map((b) => ({
        ...b,
        sessions: b.sessions.map((s) => ({
          ...s,
          timeline: {
            ...s.timeline,
            received: s.timeline.received.map((e) =>
              e.kind === 'text_final' && e.text ? { ...e, text: e.text.trim().split(/\s+/).slice(0, -1).join(' ') } : e,
            ),
          },
        })),
      })),
    });

  it('compare says a worse corpus WER is worse, with its interval, and warns when the normalizers differ', async () => {
    const { report } = await run({ maxSessions: 12, pace: { kind: 'none' } });
    assert.equal(report.config.normalizer, 'auto');
    const b = worse(report);
    const c = compareReports(report, b);
    const wer = c.corpus.find((k) => k.metric === 'corpus_wer')!;
    assert.equal(wer.a!.value, 0);
    assert.ok(wer.delta!.value > 0.05 && wer.delta!.ci95[0] > 0, `Δ ${wer.delta!.value} ${wer.delta!.ci95.join(',')}`);
    assert.equal(wer.delta!.verdict, 'worse');
    assert.equal(c.corpus.find((k) => k.metric === 'corpus_cer')!.delta!.verdict, 'worse');
    assert.match(renderComparison(c), /^ {2}worse\s+corpus_wer 0\.0+ → 0\.\d+, Δ \+0\.\d+ \[0\.\d+, 0\.\d+\]$/m);
    assert.equal(compareReports(b, report).corpus[0]!.delta!.verdict, 'better');
    assert.deepEqual(c.warnings, []);
    const rescored = recompute({ ...report, config: { ...report.config, normalizer: 'voxbench-basic-2' } });
    assert.match(
      compareReports(report, rescored).warnings.join('\n'),
      /different normalizers: A scored transcripts with whisper-english-1, B with voxbench-basic-2/,
    );
    const summary = renderSummary(b);
    assert.match(
      summary,
      /^quality: corpus WER \d+\.\d\d% \(95% CI \d+\.\d\d% to \d+\.\d\d%\) · CER \d+\.\d\d% over 12 turns \(\d+ reference words: 0 substituted, 12 deleted, 0 inserted; normalizer whisper-english-1\)$/m,
    );
    assert.match(renderMarkdown(b), /\| WER \[95% CI\] \|/);
  });

  it('report render --normalizer scores a stored run again; a bad name is one line naming the flag', async () => {
    const dir = await tempDir();
    await run({ maxSessions: 2, pace: { kind: 'none' }, outputDir: dir });
    const again = await readReport(dir, { normalizer: 'whisper-basic-1' });
    assert.equal(again.config.normalizer, 'whisper-basic-1');
    assert.equal(again.benchmarks[0]!.summary.quality.normalizer, 'whisper-basic-1');
    const rendered = await runNode([CLI, 'report', 'render', dir, '--normalizer', 'voxbench-basic']);
    assert.equal(rendered.code, 0, rendered.stderr);
    assert.match(rendered.stdout, /normalizer voxbench-basic-2\)/);
    const refused = await runNode([CLI, 'run', '--normalizer', 'whisper', '--max-sessions', '1']);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr.trim(),
      /^voxbench: error: --normalizer whisper is not a normalizer; choose auto or one of: whisper-english \(whisper-english-1\), whisper-basic \(whisper-basic-1\), voxbench-basic \(voxbench-basic-2\)$/,
    );
  });
});
