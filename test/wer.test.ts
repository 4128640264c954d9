import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { voxbenchBasic as normalizeWords } from '../src/metrics/normalizers/voxbench-basic.js';
import { normalizerById } from '../src/metrics/normalizers/index.js';
import { errorRate, transcriptErrors } from '../src/metrics/wer.js';

const wordErrors = (reference: string, hypothesis: string) => transcriptErrors(reference, hypothesis, normalizerById('voxbench-basic-2')).words;

describe('WER', () => {
  it('reads typographic apostrophes as plain ones', () => {
    assert.deepEqual(wordErrors("don't stop", 'Don’t stop.'), { substitutions: 0, deletions: 0, insertions: 0, words: 2 });
  });

  it('normalizes case, punctuation and stray apostrophes, keeping contractions', () => {
    assert.deepEqual(normalizeWords("It's  easy, 'TO' tell—the depth… of a well."), ["it's", 'easy', 'to', 'tell', 'the', 'depth', 'of', 'a', 'well']);
  });

  for (const [ref, hyp, expected] of [
    ['a b c', 'a b c', { substitutions: 0, deletions: 0, insertions: 0, words: 3 }],
    ['a b', 'a b c d e f', { substitutions: 0, deletions: 0, insertions: 4, words: 2 }],
    ['a b c', 'x a b c', { substitutions: 0, deletions: 0, insertions: 1, words: 3 }],
    ['a b c d', 'a x d', { substitutions: 1, deletions: 1, insertions: 0, words: 4 }],
    ['the cat sat', '', { substitutions: 0, deletions: 3, insertions: 0, words: 3 }],
  ] as const) {
    it(`counts edits of "${hyp}" against "${ref}"`, () => {
      assert.deepEqual(wordErrors(ref, hyp), expected);
    });
  }

  it('divides by the reference length, so insertions can push WER past 1', () => {
    assert.equal(errorRate(wordErrors('a b', 'a b c d e f')), 2);
    assert.equal(errorRate(wordErrors('a b c', 'x a b c')), 1 / 3);
    assert.equal(errorRate(wordErrors('', 'a')), null);
  });
});
