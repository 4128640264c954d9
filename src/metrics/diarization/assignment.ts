/**
 * Optimal one-to-one pairing of rows and columns that maximizes the summed weight (the
 * Hungarian method, Kuhn–Munkres with potentials, O(n³)): how reference and hypothesis
 * speakers are paired, as pyannote.metrics and dscore pair them with scipy's
 * `linear_sum_assignment`. Pairs of no weight (speakers that never meet) are left
 * unpaired, as pyannote.metrics leaves them. Any optimal pairing gives the same error
 * figures, so ties need no rule.
 */
export function maximumWeightPairs(weights: readonly (readonly number[])[], columns: number): Array<[row: number, column: number]> {
  const rows = weights.length;
  const n = Math.max(rows, columns);
  // Padded to a square of zeros; minimizing the negated weights maximizes them.
  const cost = (i: number, j: number): number => (i < rows && j < columns ? -weights[i]![j]! : 0);
  // 1-based: u and v are the potentials of rows and columns, rowOf[j] the row on column j (0: none), via[j] the column before j on the path.
  const u = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const rowOf = new Int32Array(n + 1);
  const via = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) {
    rowOf[0] = i;
    let column = 0;
    const slack = new Float64Array(n + 1).fill(Infinity);
    const seen = new Uint8Array(n + 1);
    do {
      seen[column] = 1;
      const row = rowOf[column]!;
      let delta = Infinity;
      let next = 0;
      for (let j = 1; j <= n; j++) {
        if (seen[j]) continue;
        const reduced = cost(row - 1, j - 1) - u[row]! - v[j]!;
        if (reduced < slack[j]!) {
          slack[j] = reduced;
          via[j] = column;
        }
        if (slack[j]! < delta) {
          delta = slack[j]!;
          next = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (seen[j]) {
          u[rowOf[j]!] = u[rowOf[j]!]! + delta;
          v[j] = v[j]! - delta;
        } else slack[j] = slack[j]! - delta;
      }
      column = next;
    } while (rowOf[column] !== 0);
    do {
      const previous = via[column]!;
      rowOf[column] = rowOf[previous]!;
      column = previous;
    } while (column !== 0);
  }
  const pairs: Array<[number, number]> = [];
  for (let j = 1; j <= n; j++) {
    const i = rowOf[j]! - 1;
    if (i < rows && j - 1 < columns && weights[i]![j - 1]! > 0) pairs.push([i, j - 1]);
  }
  return pairs.sort((a, b) => a[0] - b[0]);
}
