import { IN_MEMORY_ONLY, type Benchmark, type Report, type ReportSession } from './schema.js';

/**
 * `report.json` in pieces: joined, they are `JSON.stringify(report, null, 1)` and a
 * newline, byte for byte, but no piece holds more than one session, and each session
 * without what is kept in memory only (its timeline, in the session log since version 3,
 * and what was taken from it). A report of many sessions outgrows the longest string V8
 * can hold (about 512 MiB) long before it outgrows memory.
 */
export function* reportJsonChunks(report: Report): Generator<string> {
  yield* objectChunks(report, 0, (key, value) => (key === 'benchmarks' ? arrayChunks(value as Benchmark[], 1, benchmarkChunks) : undefined));
  yield '\n';
}

/** A benchmark, where the report holds it, with each of its sessions one piece. */
function benchmarkChunks(benchmark: Benchmark): Iterable<string> {
  return objectChunks(benchmark, 2, (key, value) =>
    key === 'sessions' ? arrayChunks(value as ReportSession[], 3, (session) => [stringify(stored(session), 4)]) : undefined,
  );
}

/** A session as `report.json` stores it. */
function stored(session: ReportSession): object {
  const kept: Record<string, unknown> = {};
  for (const key in session) if (!IN_MEMORY_ONLY.has(key)) kept[key] = session[key as keyof ReportSession];
  return kept;
}

/** Pieces of a value's JSON, or undefined to write it whole. */
type Expand = (key: string, value: unknown) => Iterable<string> | undefined;

/** A value's JSON at `depth` levels of nesting, as JSON.stringify with a one-space indent writes it there. */
function stringify(value: unknown, depth: number): string {
  // Wrapped in `depth` arrays, the value is indented by JSON.stringify itself (faster
  // than re-indenting its lines); the wrappers' brackets are then cut off.
  let wrapped = value;
  for (let i = 0; i < depth; i++) wrapped = [wrapped];
  const json = JSON.stringify(wrapped, null, 1);
  const { open, close } = wrapperOf(depth);
  return json.slice(open, json.length - close);
}

/** Lengths of what `depth` wrapping arrays add before and after a value: `[`, a line break and the indent, per level. */
function wrapperOf(depth: number): { open: number; close: number } {
  const levels = Array.from({ length: depth }, (_, i) => i);
  return {
    open: levels.reduce((n, i) => n + '[\n'.length + i + 1, 0),
    close: levels.reduce((n, i) => n + '\n'.length + i + ']'.length, 0),
  };
}

function* objectChunks(object: object, depth: number, expand: Expand): Generator<string> {
  // JSON.stringify leaves out properties that are undefined.
  const entries = Object.entries(object).filter(([, v]) => v !== undefined);
  if (entries.length === 0) {
    yield '{}';
    return;
  }
  const indent = ' '.repeat(depth + 1);
  for (const [i, [key, value]] of entries.entries()) {
    yield `${i === 0 ? '{' : ','}\n${indent}${JSON.stringify(key)}: `;
    yield* expand(key, value) ?? [stringify(value, depth + 1)];
  }
  yield `\n${' '.repeat(depth)}}`;
}

function* arrayChunks<T>(items: readonly T[], depth: number, item: (value: T) => Iterable<string>): Generator<string> {
  if (items.length === 0) {
    yield '[]';
    return;
  }
  const indent = ' '.repeat(depth + 1);
  for (const [i, value] of items.entries()) {
    yield `${i === 0 ? '[' : ','}\n${indent}`;
    yield* item(value);
  }
  yield `\n${' '.repeat(depth)}]`;
}
