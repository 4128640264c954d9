import type { DatasetProblem } from './dataset.js';

/** A dataset that cannot be used at all; the message names the path and what to do. */
export class DatasetError extends Error {
  override name = 'DatasetError';
}

/** Where a problem is: the file, and its JSONL line or table row. */
export function describePlace(at: Omit<DatasetProblem, 'reason'>): string {
  return `${at.file}${at.line !== undefined ? ` line ${at.line}` : at.row !== undefined ? ` row ${at.row}` : ''}`;
}

/** One line: where, and why. */
export function describeProblem(problem: DatasetProblem): string {
  return `${describePlace(problem)}: ${problem.reason}`;
}
