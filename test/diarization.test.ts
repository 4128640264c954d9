import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { maximumWeightPairs } from '../src/metrics/diarization/assignment.js';
import { corpusDiarization, corpusSpeakerStability, corpusWordSpeakerErrors } from '../src/metrics/diarization/corpus.js';
import { derOf } from '../src/metrics/diarization/der.js';
import { jerOf } from '../src/metrics/diarization/jer.js';
import { DEFAULT_RULES, describeRules, matchingTools, type DiarizationRules } from '../src/metrics/diarization/rules.js';
import { scoreDiarization } from '../src/metrics/diarization/score.js';
import type { Span } from '../src/metrics/diarization/spans.js';
import { relabelledShare, speakerStability } from '../src/metrics/diarization/stability.js';
import type { SpeakerTurn } from '../src/metrics/diarization/turns.js';
import { wordSpeakerErrorRate, wordSpeakerErrors } from '../src/metrics/diarization/words.js';
import { seededRandom } from '../src/util/random.js';

const turn = (speaker: string, startMs: number, endMs: number): SpeakerTurn => ({ speaker, startMs, endMs });
const rules = (change: Partial<DiarizationRules>): DiarizationRules => ({ ...DEFAULT_RULES, ...change });
const close = (actual: number, expected: number, what: string): void =>
  assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected)), `${what}: ${actual} != ${expected}`);

describe('speaker pairing (Hungarian)', () => {
  /** The best summed weight over every one-to-one pairing, by trying them all. */
  function bruteBest(weights: number[][], columns: number, row = 0, used = new Set<number>()): number {
    if (row === weights.length) return 0;
    let best = bruteBest(weights, columns, row + 1, used);
    for (let c = 0; c < columns; c++) {
      if (used.has(c)) continue;
      used.add(c);
      best = Math.max(best, weights[row]![c]! + bruteBest(weights, columns, row + 1, used));
      used.delete(c);
    }
    return best;
  }

  it('finds the best pairing of rectangular matrices, one to one, leaving pairs of no weight out', () => {
    const random = seededRandom(5);
    for (let n = 0; n < 300; n++) {
      const [rows, columns] = [Math.floor(random() * 5), Math.floor(random() * 5)];
      const weights = Array.from({ length: rows }, () => Array.from({ length: columns }, () => (random() < 0.3 ? 0 : Math.floor(random() * 20) / 4)));
      const pairs = maximumWeightPairs(weights, columns);
      assert.equal(new Set(pairs.map(([r]) => r)).size, pairs.length);
      assert.equal(new Set(pairs.map(([, c]) => c)).size, pairs.length);
      assert.ok(pairs.every(([r, c]) => weights[r]![c]! > 0));
      close(
        pairs.reduce((sum, [r, c]) => sum + weights[r]![c]!, 0),
        bruteBest(weights, columns),
        JSON.stringify(weights),
      );
    }
  });
});

describe('DER and JER, hand-computed', () => {
  it('a perfect hypothesis with other speaker names scores 0, its speakers paired', () => {
    const score = scoreDiarization([turn('A', 0, 1000), turn('B', 1000, 2500)], [turn('s2', 0, 1000), turn('s1', 1000, 2500)]);
    assert.deepEqual(score.der, { scoredMs: 2500, missedMs: 0, falseAlarmMs: 0, confusionMs: 0, pairs: { s2: 'A', s1: 'B' } });
    assert.equal(jerOf(score.jer), 0);
  });

  it('overlapped speech counts once per speaker talking: one hypothesis speaker over two misses one and confuses', () => {
    // A 0-10 s, B 5-15 s; the hypothesis hears one speaker 0-15 s.
    const reference = [turn('A', 0, 10_000), turn('B', 5_000, 15_000)];
    const score = scoreDiarization(reference, [turn('x', 0, 15_000)]);
    // 20 s of speaker time; 5 s missed where both talk; x pairs with one speaker (10 s), the other's 5 s alone is confusion.
    assert.deepEqual({ ...score.der, pairs: undefined }, { scoredMs: 20_000, missedMs: 5_000, falseAlarmMs: 0, confusionMs: 5_000, pairs: undefined });
    assert.equal(derOf(score.der), 0.5);
    // The paired speaker: 10 s together over 15 s of union; the other unpaired scores 1.
    close(jerOf(score.jer), (5 / 15 + 1) / 2, 'JER');

    const skipped = scoreDiarization(reference, [turn('x', 0, 15_000)], rules({ overlap: 'skipped' }));
    assert.deepEqual({ ...skipped.der, pairs: undefined }, { scoredMs: 10_000, missedMs: 0, falseAlarmMs: 0, confusionMs: 5_000, pairs: undefined });
  });

  it('a collar reaches half its width each side when total, its whole width when per side; a boundary at its edge costs nothing', () => {
    const reference = [turn('A', 1000, 3000)];
    const hypothesis = [turn('x', 1100, 3000)];
    const scored = (collar: DiarizationRules['collar']) => scoreDiarization(reference, hypothesis, rules({ collar })).der;
    // ±100 ms: scored 1100-2900, the hypothesis starts at the collar's edge.
    for (const collar of [
      { ms: 200, per: 'total' },
      { ms: 100, per: 'side' },
    ] as const) {
      assert.deepEqual(
        { ...scored(collar), pairs: undefined },
        { scoredMs: 1800, missedMs: 0, falseAlarmMs: 0, confusionMs: 0, pairs: undefined },
        JSON.stringify(collar),
      );
    }
    // ±50 ms: 1050-1100 is missed.
    const narrow = scored({ ms: 100, per: 'total' });
    assert.equal(narrow.scoredMs, 1900);
    assert.equal(narrow.missedMs, 50);
    // No collar: all 100 ms missed.
    assert.equal(scored({ ms: 0, per: 'total' }).missedMs, 100);
  });

  it('collars sit at every reference boundary, hypothesis boundaries have none', () => {
    const der = scoreDiarization([turn('A', 0, 1000)], [turn('x', 0, 1000), turn('y', 1000, 1500)], rules({ collar: { ms: 100, per: 'side' } })).der;
    // Scored 100-900 of the reference; after 1100 the false alarm of y counts (1100-1500).
    assert.deepEqual({ ...der, pairs: undefined }, { scoredMs: 800, missedMs: 0, falseAlarmMs: 400, confusionMs: 0, pairs: undefined });
  });

  it('an extra hypothesis speaker is confusion, an unpaired reference speaker is confusion in DER and 1 in JER', () => {
    const extra = scoreDiarization(
      [turn('A', 0, 10_000), turn('B', 10_000, 20_000)],
      [turn('x', 0, 10_000), turn('y', 10_000, 15_000), turn('z', 15_000, 20_000)],
    );
    assert.equal(extra.der.confusionMs, 5_000);
    assert.equal(derOf(extra.der), 0.25);
    assert.equal(extra.der.pairs.x, 'A');
    // A is perfect; B is paired with y or z: 5 s together over 10 s.
    close(jerOf(extra.jer), 0.25, 'JER');

    const unpaired = scoreDiarization(
      [turn('A', 0, 10_000), turn('B', 10_000, 20_000), turn('C', 20_000, 30_000)],
      [turn('x', 0, 10_000), turn('y', 10_000, 30_000)],
    );
    assert.equal(unpaired.der.confusionMs, 10_000);
    close(derOf(unpaired.der), 1 / 3, 'DER');
    assert.equal(unpaired.jer.speakers.filter((s) => s.pairedWith === undefined).length, 1);
    close(jerOf(unpaired.jer), (0 + 0.5 + 1) / 3, 'JER');
  });

  it('JER pairs for the most time together (pyannote.metrics) or the highest Jaccard index (dscore), as the rules say', () => {
    // x lies within A; y shares more of A's time but talks 8 s more; B meets neither.
    const reference = [turn('A', 0, 1000), turn('B', 10_000, 10_100)];
    const hypothesis = [turn('x', 0, 400), turn('y', 400, 1000), turn('y', 2000, 10_000)];
    const byOverlap = scoreDiarization(reference, hypothesis, rules({ jerMapping: 'overlap' })).jer;
    assert.equal(byOverlap.speakers[0]!.pairedWith, 'y');
    close(jerOf(byOverlap), (8400 / 9000 + 1) / 2, 'JER by overlap');
    const byJaccard = scoreDiarization(reference, hypothesis, rules({ jerMapping: 'jaccard' })).jer;
    assert.equal(byJaccard.speakers[0]!.pairedWith, 'x');
    close(jerOf(byJaccard), (600 / 1000 + 1) / 2, 'JER by Jaccard');
    // DER pairs for time together whatever JER's rule: A with y; 400 ms of x is confusion, y's 8 s false alarm, B's 100 ms missed.
    const der = scoreDiarization(reference, hypothesis, rules({ jerMapping: 'jaccard' })).der;
    assert.deepEqual({ ...der, pairs: undefined }, { scoredMs: 1100, missedMs: 100, falseAlarmMs: 8000, confusionMs: 400, pairs: undefined });
  });

  it('pairs speakers within the scored time (pyannote.metrics) or the whole region (md-eval), as the rules say', () => {
    // A's short turns lie all in the collars; over the whole region x shares more time with A, over the scored time only with B.
    const reference = [turn('A', 0, 400), turn('A', 600, 1000), turn('B', 2000, 2700)];
    const hypothesis = [turn('x', 0, 400), turn('x', 600, 1000), turn('x', 2000, 2700)];
    const collar = { ms: 200, per: 'side' } as const;
    const scored = scoreDiarization(reference, hypothesis, rules({ collar, mapping: 'scored-time' })).der;
    assert.deepEqual(scored, { scoredMs: 300, missedMs: 0, falseAlarmMs: 0, confusionMs: 0, pairs: { x: 'B' } });
    const whole = scoreDiarization(reference, hypothesis, rules({ collar, mapping: 'whole-region' })).der;
    assert.deepEqual(whole, { scoredMs: 300, missedMs: 0, falseAlarmMs: 0, confusionMs: 300, pairs: { x: 'A' } });
  });

  it('empty sides: nothing said is 0, speech against silence is 1', () => {
    const none = scoreDiarization([], []);
    assert.equal(derOf(none.der), 0);
    assert.equal(jerOf(none.jer), 0);
    const falseAlarm = scoreDiarization([], [turn('x', 0, 1000)]);
    assert.deepEqual({ ...falseAlarm.der, pairs: undefined }, { scoredMs: 0, missedMs: 0, falseAlarmMs: 1000, confusionMs: 0, pairs: undefined });
    assert.equal(derOf(falseAlarm.der), 1);
    assert.equal(jerOf(falseAlarm.jer), 1);
    const missed = scoreDiarization([turn('A', 0, 1000)], []);
    assert.equal(derOf(missed.der), 1);
    assert.equal(jerOf(missed.jer), 1);
  });

  it('scores over the UEM where given, else the extents the rules name', () => {
    const reference = [turn('A', 0, 1000)];
    const hypothesis = [turn('x', 500, 2000)];
    // UEM 0-1.5 s: 500 ms missed, 500 ms false alarm.
    const uem = scoreDiarization(reference, hypothesis, DEFAULT_RULES, [{ startMs: 0, endMs: 1500 }]).der;
    assert.deepEqual({ ...uem, pairs: undefined }, { scoredMs: 1000, missedMs: 500, falseAlarmMs: 500, confusionMs: 0, pairs: undefined });
    assert.equal(scoreDiarization(reference, hypothesis).der.falseAlarmMs, 1000);
    assert.equal(scoreDiarization(reference, hypothesis, rules({ region: 'reference-extent' })).der.falseAlarmMs, 0);
  });

  it('a speaker whose own turns overlap talks once, and those turns are merged before collars are placed (as dscore)', () => {
    const der = scoreDiarization([turn('A', 0, 1000), turn('A', 500, 1500)], [turn('x', 0, 1500)]).der;
    assert.deepEqual({ ...der, pairs: undefined }, { scoredMs: 1500, missedMs: 0, falseAlarmMs: 0, confusionMs: 0, pairs: undefined });
    const collar = rules({ collar: { ms: 100, per: 'side' } });
    // One turn 0-1.5 s: collars at 0 and 1.5 s only.
    assert.equal(scoreDiarization([turn('A', 0, 1000), turn('A', 500, 1500)], [turn('x', 0, 1500)], collar).der.scoredMs, 1300);
    // Turns that only touch stay two (intervaltree's merge_overlaps): a collar at 1 s too.
    assert.equal(scoreDiarization([turn('A', 0, 1000), turn('A', 1000, 1500)], [turn('x', 0, 1500)], collar).der.scoredMs, 1100);
  });
});

describe('agreement with pyannote.metrics and md-eval', () => {
  interface Recording {
    reference: SpeakerTurn[];
    hypothesis: SpeakerTurn[];
    uem?: Span[];
    scores: Array<{
      collarTotalMs: number;
      skipOverlap: boolean;
      scoredMs: number;
      missedMs: number;
      falseAlarmMs: number;
      confusionMs: number;
      jerSpeakerErrorSum: number;
      jerSpeakers: number;
      /** JER's sums under each pairing tied for the most time together, where they differ: scipy's order picks one. */
      jerTiedSums?: number[];
      /** md-eval-22.pl's speaker times with the collar given per side, where it reports any. */
      mdEval?: { scoredMs: number; missedMs: number; falseAlarmMs: number; confusionMs: number };
    }>;
  }

  it("gives DiarizationErrorRate's and JaccardErrorRate's parts, and md-eval's when pairing over the whole region, on random segmentations (scripts/make-diarization-fixtures.py)", async () => {
    const recordings = JSON.parse(await readFile(new URL('../../test/fixtures/diarization-pyannote.json', import.meta.url), 'utf8')) as Recording[];
    assert.ok(recordings.length >= 50);
    let mdEvalCases = 0;
    for (const [i, { reference, hypothesis, uem, scores }] of recordings.entries()) {
      for (const expected of scores) {
        const what = `recording ${i}, collar=${expected.collarTotalMs / 1000}, skip_overlap=${expected.skipOverlap}`;
        const overlap = expected.skipOverlap ? 'skipped' : 'scored';
        // pyannote's collar is the zone's whole width; the same zone as half of it per side.
        for (const collar of [
          { ms: expected.collarTotalMs, per: 'total' },
          { ms: expected.collarTotalMs / 2, per: 'side' },
        ] as const) {
          const score = scoreDiarization(reference, hypothesis, rules({ collar, overlap }), uem);
          for (const part of ['scoredMs', 'missedMs', 'falseAlarmMs', 'confusionMs'] as const) close(score.der[part], expected[part], `${what}: ${part}`);
          assert.equal(score.jer.speakers.length, expected.jerSpeakers, `${what}: JER speakers`);
          const jerSum = score.jer.speakers.reduce((n, s) => n + s.error, 0);
          const allowed = expected.jerTiedSums ?? [expected.jerSpeakerErrorSum];
          assert.ok(
            allowed.some((sum) => Math.abs(sum - jerSum) < 1e-9),
            `${what}: JER ${jerSum} not in ${allowed.join(', ')}`,
          );
        }
        if (!expected.mdEval) continue;
        mdEvalCases++;
        const der = scoreDiarization(
          reference,
          hypothesis,
          rules({ collar: { ms: expected.collarTotalMs / 2, per: 'side' }, overlap, mapping: 'whole-region' }),
          uem,
        ).der;
        // md-eval prints seconds to the microsecond.
        for (const part of ['scoredMs', 'missedMs', 'falseAlarmMs', 'confusionMs'] as const) {
          assert.ok(Math.abs(der[part] - expected.mdEval[part]) < 0.002, `${what}: md-eval's ${part} ${expected.mdEval[part]}, not ${der[part]}`);
        }
      }
    }
    assert.ok(mdEvalCases >= 400, `${mdEvalCases} cases scored by md-eval`);
  });
});

/**
 * The straightforward definition, 1 ms at a time on whole-ms turns: which frames are
 * scored, who talks in each, and the best pairing found by trying every one. It shares
 * no code with the scorer under test.
 */
function frameScore(reference: SpeakerTurn[], hypothesis: SpeakerTurn[], rule: DiarizationRules, uem?: Span[]) {
  const reach = rule.collar.per === 'side' ? rule.collar.ms : rule.collar.ms / 2;
  const both = [...reference, ...hypothesis];
  const extent = rule.region === 'extents' ? both : reference;
  const lo = Math.min(0, ...both.map((t) => t.startMs)) - 1;
  const hi = Math.max(0, ...both.map((t) => t.endMs), ...(uem ?? []).map((u) => u.endMs)) + 1;
  const refNames = [...new Set(reference.map((t) => t.speaker))];
  const hypNames = [...new Set(hypothesis.map((t) => t.speaker))];
  const together = refNames.map(() => hypNames.map(() => 0));
  // Before collars and overlap are taken out: where md-eval pairs speakers.
  const togetherWhole = refNames.map(() => hypNames.map(() => 0));
  const refMs = refNames.map(() => 0);
  const hypMs = hypNames.map(() => 0);
  let [scored, missed, falseAlarm, matchable] = [0, 0, 0, 0];
  for (let t = lo; t < hi; t++) {
    const inRegion = uem
      ? uem.some((u) => u.startMs <= t && t < u.endMs)
      : extent.length > 0 && Math.min(...extent.map((x) => x.startMs)) <= t && t < Math.max(...extent.map((x) => x.endMs));
    if (!inRegion) continue;
    const talking = (turns: SpeakerTurn[], names: string[]) =>
      names.flatMap((name, i) => (turns.some((x) => x.speaker === name && x.startMs <= t && t < x.endMs) ? [i] : []));
    const [r, h] = [talking(reference, refNames), talking(hypothesis, hypNames)];
    for (const i of r) for (const j of h) togetherWhole[i]![j]!++;
    if (reference.some((x) => [x.startMs, x.endMs].some((b) => b - reach <= t && t + 1 <= b + reach))) continue;
    if (rule.overlap === 'skipped' && r.length >= 2) continue;
    scored += r.length;
    missed += Math.max(0, r.length - h.length);
    falseAlarm += Math.max(0, h.length - r.length);
    matchable += Math.min(r.length, h.length);
    for (const i of r) refMs[i]!++;
    for (const j of h) hypMs[j]!++;
    for (const i of r) for (const j of h) together[i]![j]!++;
  }
  // Every one-to-one pairing of reference speakers (index: hypothesis speaker, or -1).
  const pairings: number[][] = [];
  const extend = (chosen: number[]) => {
    if (chosen.length === refNames.length) return void pairings.push(chosen);
    extend([...chosen, -1]);
    for (let j = 0; j < hypNames.length; j++) if (!chosen.includes(j)) extend([...chosen, j]);
  };
  extend([]);
  const sumOver = (pairing: number[], weight: (i: number, j: number) => number) => pairing.reduce((n, j, i) => n + (j < 0 ? 0 : weight(i, j)), 0);
  const togetherOf = (i: number, j: number) => together[i]![j]!;
  const jaccardOf = (i: number, j: number) => (togetherOf(i, j) === 0 ? 0 : togetherOf(i, j) / (refMs[i]! + hypMs[j]! - togetherOf(i, j)));
  // Pairings tied on the weight they are chosen by may differ in confusion: any of them is right.
  const pairingWeight = rule.mapping === 'scored-time' ? togetherOf : (i: number, j: number) => togetherWhole[i]![j]!;
  const bestPairing = Math.max(...pairings.map((p) => sumOver(p, pairingWeight)));
  const confusions = pairings.filter((p) => sumOver(p, pairingWeight) === bestPairing).map((p) => matchable - sumOver(p, togetherOf));
  // Speakers with no scored time are not scored by JER.
  const scoredSpeakers = refNames.map((_, i) => i).filter((i) => refMs[i]! > 0);
  const jerOfPairing = (p: number[]) => scoredSpeakers.reduce((n, i) => n + (p[i]! < 0 || togetherOf(i, p[i]!) === 0 ? 1 : 1 - jaccardOf(i, p[i]!)), 0);
  const jerWeight = rule.jerMapping === 'overlap' ? togetherOf : jaccardOf;
  const bestJerWeight = Math.max(...pairings.map((p) => sumOver(p, jerWeight)));
  // Pairings tied on their rule's weight may differ in JER: any of them is right.
  const jerSums = pairings.filter((p) => Math.abs(sumOver(p, jerWeight) - bestJerWeight) < 1e-9).map(jerOfPairing);
  return { scoredMs: scored, missedMs: missed, falseAlarmMs: falseAlarm, confusions, jerSums, jerSpeakers: scoredSpeakers.length };
}

function randomTurns(random: () => number, prefix: string): SpeakerTurn[] {
  const speakers = Math.floor(random() * 4);
  return Array.from({ length: Math.floor(random() * 9) }, () => {
    const startMs = Math.floor(random() * 4000);
    return turn(`${prefix}${Math.floor(random() * Math.max(1, speakers))}`, startMs, startMs + 1 + Math.floor(random() * 1500));
  });
}

/**
 * dscore's `merge_turns`, written apart from the scorer: a speaker's turns that overlap
 * (not those that only touch) become one, pair by pair until none is left.
 */
function mergedAsDscore(turns: SpeakerTurn[]): SpeakerTurn[] {
  const out = turns.map((t) => ({ ...t }));
  for (let again = true; again;) {
    again = false;
    for (let i = 0; i < out.length && !again; i++) {
      for (let j = i + 1; j < out.length && !again; j++) {
        const [a, b] = [out[i]!, out[j]!];
        if (a.speaker !== b.speaker || !(a.startMs < b.endMs && b.startMs < a.endMs)) continue;
        out[i] = turn(a.speaker, Math.min(a.startMs, b.startMs), Math.max(a.endMs, b.endMs));
        out.splice(j, 1);
        again = true;
      }
    }
  }
  return out;
}

describe('agreement with a frame-by-frame scorer', () => {
  it('gives the same DER parts and JER on random segmentations under random rules', () => {
    const random = seededRandom(27);
    for (let n = 0; n < 200; n++) {
      const reference = randomTurns(random, 'r');
      // Half the hypotheses follow the reference with moved boundaries, so pairing matters.
      const hypothesis =
        random() < 0.5
          ? randomTurns(random, 'h')
          : reference.map((t) => turn(`h${t.speaker.slice(1)}`, t.startMs + Math.floor(random() * 200), t.endMs + 200 + Math.floor(random() * 200)));
      const rule = rules({
        collar: { ms: [0, 100, 250][Math.floor(random() * 3)]!, per: random() < 0.5 ? 'total' : 'side' },
        overlap: random() < 0.5 ? 'scored' : 'skipped',
        region: random() < 0.5 ? 'extents' : 'reference-extent',
        mapping: random() < 0.5 ? 'scored-time' : 'whole-region',
        jerMapping: random() < 0.5 ? 'overlap' : 'jaccard',
      });
      const start = Math.floor(random() * 3000);
      const uem = random() < 0.3 ? [{ startMs: start, endMs: start + 1 + Math.floor(random() * 3000) }] : undefined;
      const what = JSON.stringify({ reference, hypothesis, rule, uem });
      // A speaker's own overlapping turns are made one before collars are placed (dscore's order).
      const expected = frameScore(mergedAsDscore(reference), hypothesis, rule, uem);
      const score = scoreDiarization(reference, hypothesis, rule, uem);
      for (const part of ['scoredMs', 'missedMs', 'falseAlarmMs'] as const) close(score.der[part], expected[part], `${part} of ${what}`);
      assert.ok(
        expected.confusions.some((ms) => Math.abs(ms - score.der.confusionMs) < 1e-6),
        `confusion ${score.der.confusionMs} not in ${expected.confusions.join(', ')} of ${what}`,
      );
      assert.equal(score.jer.speakers.length, expected.jerSpeakers, what);
      const jerSum = score.jer.speakers.reduce((s, j) => s + j.error, 0);
      assert.ok(
        expected.jerSums.some((sum) => Math.abs(sum - jerSum) < 1e-9),
        `JER ${jerSum} not in ${expected.jerSums.join(', ')} of ${what}`,
      );
    }
  });
});

describe("a reference speaker who overlaps themself, scored in dscore's order", () => {
  it("merges a speaker's own overlapping turns first, then places collars at the merged turns: the frame scorer on the merged reference agrees", () => {
    const random = seededRandom(32);
    let overlapping = 0;
    for (let n = 0; n < 250; n++) {
      const reference = randomTurns(random, 'r');
      // Every speaker talks over themself at least once; now and then a turn only touches one of theirs.
      for (const t of [...reference]) {
        const at = t.startMs + Math.floor(random() * (t.endMs - t.startMs));
        reference.push(
          random() < 0.2 ? turn(t.speaker, t.endMs, t.endMs + 100 + Math.floor(random() * 500)) : turn(t.speaker, at, at + 1 + Math.floor(random() * 1500)),
        );
      }
      if (mergedAsDscore(reference).length < reference.length) overlapping++;
      const hypothesis = randomTurns(random, 'h');
      const rule = rules({
        collar: { ms: [100, 250, 500][Math.floor(random() * 3)]!, per: random() < 0.5 ? 'total' : 'side' },
        overlap: random() < 0.5 ? 'scored' : 'skipped',
        region: random() < 0.5 ? 'extents' : 'reference-extent',
      });
      const what = JSON.stringify({ reference, hypothesis, rule });
      const expected = frameScore(mergedAsDscore(reference), hypothesis, rule);
      const score = scoreDiarization(reference, hypothesis, rule);
      for (const part of ['scoredMs', 'missedMs', 'falseAlarmMs'] as const) close(score.der[part], expected[part], `${part} of ${what}`);
      assert.ok(
        expected.confusions.some((ms) => Math.abs(ms - score.der.confusionMs) < 1e-6),
        `confusion ${score.der.confusionMs} not in ${expected.confusions.join(', ')} of ${what}`,
      );
    }
    assert.ok(overlapping > 150, `${overlapping} references with a speaker over themself`);
  });
});

describe('rules on record', () => {
  it("names the collar's reach and the tools' settings that match it", () => {
    const side = rules({ collar: { ms: 250, per: 'side' } });
    const total = rules({ collar: { ms: 500, per: 'total' } });
    assert.deepEqual(matchingTools(side), matchingTools(total));
    // With a collar the pairing decides which tool's DER it is.
    assert.deepEqual(matchingTools(side).der, ['pyannote.metrics DiarizationErrorRate(collar=0.5, skip_overlap=False)']);
    assert.deepEqual(matchingTools({ ...side, mapping: 'whole-region' }).der, ['dscore --collar 0.25 (md-eval.pl -c 0.25)']);
    assert.deepEqual(matchingTools(DEFAULT_RULES).der, [
      'pyannote.metrics DiarizationErrorRate(collar=0, skip_overlap=False)',
      'dscore --collar 0 (md-eval.pl -c 0)',
    ]);
    assert.match(describeRules(side), /collar ±250 ms around each reference boundary \(500 ms in all\)/);
    assert.match(describeRules(DEFAULT_RULES), /^no collar; overlapped speech scored; .* within the scored time/);
    const skipped = matchingTools(rules({ overlap: 'skipped', jerMapping: 'jaccard', mapping: 'whole-region' }));
    assert.deepEqual(skipped.der, ['dscore --collar 0 --ignore_overlaps (md-eval.pl -c 0 -1)']);
    // dscore's JER never skips overlap, so nothing matches it then.
    assert.deepEqual(skipped.jer, []);
    assert.deepEqual(matchingTools(rules({ jerMapping: 'jaccard' })).jer, ["dscore's JER (to its 10 ms frames)"]);
  });
});

describe('word-level diarization error', () => {
  it('counts words given to the wrong speaker once speakers are paired; words outside every turn are not scored', () => {
    const reference = [turn('A', 0, 1000), turn('B', 1000, 2000)];
    const words = [turn('x', 100, 300), turn('x', 400, 600), turn('y', 1100, 1300), turn('x', 1500, 1700), turn('y', 2100, 2200)];
    const errors = wordSpeakerErrors(words, reference);
    assert.deepEqual(errors, { words: 4, wrong: 1, outside: 1, pairs: { x: 'A', y: 'B' } });
    assert.equal(wordSpeakerErrorRate(errors), 0.25);
    assert.equal(wordSpeakerErrorRate(wordSpeakerErrors([], reference)), null);
  });

  it("places a word by its midpoint, and a word said in overlap is right with either speaker's pair", () => {
    const reference = [turn('A', 0, 1000), turn('B', 500, 1500)];
    const words = [turn('x', 100, 300), turn('y', 1200, 1400), turn('y', 600, 800), turn('x', 900, 1300)];
    // The last word's midpoint (1100) is B's alone, and x is A's pair.
    assert.deepEqual(wordSpeakerErrors(words, reference), { words: 4, wrong: 1, outside: 0, pairs: { x: 'A', y: 'B' } });
  });
});

describe('speaker stability', () => {
  it("counts words relabelled after their first emission, and every change of a word's speaker", () => {
    const stability = speakerStability([
      { word: 0, speaker: 'A' },
      { word: 1, speaker: 'A' },
      { word: 0, speaker: 'B' },
      { word: 2, speaker: 'B' },
      { word: 0, speaker: 'A' },
      { word: 1, speaker: 'A' },
    ]);
    assert.deepEqual(stability, { words: 3, relabelledWords: 1, relabels: 2 });
    assert.equal(relabelledShare(stability), 1 / 3);
    assert.equal(relabelledShare(speakerStability([])), null);
  });
});

describe('corpus figures', () => {
  it('pool time over recordings for DER, speakers for JER, with seeded bootstrap intervals', () => {
    const a = scoreDiarization([turn('A', 0, 10_000)], [turn('x', 0, 9_000)]); // 1 s missed of 10
    const b = scoreDiarization([turn('A', 0, 2_000), turn('B', 2_000, 4_000)], [turn('x', 0, 4_000)]); // 2 s confused of 4
    const corpus = corpusDiarization([a, b, a, b]);
    assert.equal(corpus.recordings, 4);
    assert.equal(corpus.scoredMs, 28_000);
    close(corpus.der!, 6 / 28, 'DER');
    close(corpus.missed!, 2 / 28, 'missed');
    close(corpus.confusion!, 4 / 28, 'confusion');
    assert.equal(corpus.falseAlarm, 0);
    // a: A 0.1; b: the speaker paired with x shares 2 s of 4 (0.5), the other is unpaired (1).
    close(corpus.jer!, (0.1 + 1.5 + 0.1 + 1.5) / 6, 'JER');
    const [low, high] = corpus.derCi95!;
    assert.ok(low <= corpus.der! && corpus.der! <= high && low < high, `${low}..${high}`);
    assert.deepEqual(corpusDiarization([a, b, a, b]).derCi95, corpus.derCi95);
    assert.ok(corpus.jerCi95![0] <= corpus.jer! && corpus.jer! <= corpus.jerCi95![1]);
    assert.deepEqual(corpusDiarization([]), {
      recordings: 0,
      scoredMs: 0,
      der: null,
      missed: null,
      falseAlarm: null,
      confusion: null,
      derCi95: null,
      jer: null,
      jerCi95: null,
    });
  });

  it('pool words for word-level error and streams for stability', () => {
    const words = corpusWordSpeakerErrors([
      { words: 10, wrong: 1, outside: 0, pairs: {} },
      { words: 30, wrong: 9, outside: 2, pairs: {} },
    ]);
    assert.equal(words.value, 0.25);
    assert.ok(words.ci95![0] <= 0.25 && 0.25 <= words.ci95![1]);
    assert.deepEqual(corpusWordSpeakerErrors([]), { value: null, ci95: null });
    assert.equal(
      corpusSpeakerStability([
        { words: 4, relabelledWords: 1, relabels: 1 },
        { words: 6, relabelledWords: 0, relabels: 0 },
      ]).value,
      0.1,
    );
  });
});
