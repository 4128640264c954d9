import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonPieces } from '../src/report/json-pieces.js';

const joined = (value: unknown): string => [...jsonPieces(value)].join('');

describe('jsonPieces', () => {
  it('joins to exactly what JSON.stringify writes', () => {
    const values: unknown[] = [
      { a: 1, b: 'two "quoted" \u2028', c: null, d: [1, 'x', null, { e: [] }], f: {}, g: true },
      { skipped: undefined, fn: () => 1, sym: Symbol('s'), kept: 0 },
      { onlySkipped: undefined },
      [undefined, () => 1, NaN, Infinity, -0],
      { when: new Date(0), nested: { deeper: { deepest: [[1, 2], [3]] } } },
      { long: Array.from({ length: 1000 }, (_, i) => ({ seq: i, sentMs: i * 100.25, text: i % 7 ? undefined : `w${i}` })) },
      [],
      {},
      'text',
      42,
      null,
    ];
    for (const value of values) assert.equal(joined(value), JSON.stringify(value));
  });

  it('cuts long arrays into many pieces', () => {
    assert.ok([...jsonPieces({ long: Array.from({ length: 1000 }, (_, i) => i) })].length > 10);
  });
});
