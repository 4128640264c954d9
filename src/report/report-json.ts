import { storedPlace, type Layout, type StoredMetrics } from '../metrics/stored-metrics.js';
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
    key === 'sessions' ? arrayChunks(value as ReportSession[], 3, (session) => [sessionJson(session, 4)]) : undefined,
  );
}

/**
 * A session's JSON at `depth`. Its metrics, two thirds of the file, are written from
 * where their values lie by their layout's template, not made into rows and walked by
 * `JSON.stringify` (0.65 s of 0.93 at 100,000 sessions; issue 38), where they are stored
 * and come last, as a built report puts them.
 */
function sessionJson(session: ReportSession, depth: number): string {
  const kept = stored(session);
  const place = storedPlace(session.metrics);
  const keys = Object.keys(kept);
  // Written after the other fields, so there must be one written before it (JSON leaves out those undefined).
  const written = keys.filter((key) => kept[key] !== undefined);
  if (!place || written.length < 2 || written.at(-1) !== 'metrics') return stringify(kept, depth);
  delete kept.metrics;
  const head = stringify(kept, depth);
  const indent = ' '.repeat(depth);
  return `${head.slice(0, -(indent.length + 2))},\n${indent} "metrics": ${metricsJson(place, depth + 1)}\n${indent}}`;
}

/** A value that no metric's name holds, put in a layout's place for each value to cut its JSON into a template. */
const PLACE = 1e308;

/** Each layout's JSON at a depth, cut around its values: a report's sessions share a few layouts. */
const templates = new WeakMap<Layout, { depth: number; parts: string[] }>();

/** Stored metrics as `stringify` writes their rows at `depth`, a finite value as JSON writes it, any other as null. */
function metricsJson({ layout, chunk, at }: Pick<StoredMetrics, 'layout' | 'chunk' | 'at'>, depth: number): string {
  let template = templates.get(layout);
  if (template?.depth !== depth) {
    const row = (names: readonly string[]): Record<string, number> => Object.fromEntries(names.map((name) => [name, PLACE]));
    const rows = { session: row(layout.session), inputs: layout.inputs.map(row), responses: layout.responses.map(row) };
    template = { depth, parts: stringify(rows, depth).split(String(PLACE)) };
    templates.set(layout, template);
  }
  const { parts } = template;
  let json = parts[0]!;
  for (let k = 1; k < parts.length; k++) {
    const value = chunk[at + k - 1]!;
    json += (Number.isFinite(value) ? String(value) : 'null') + parts[k]!;
  }
  return json;
}

/** A session as `report.json` stores it. */
function stored(session: ReportSession): Record<string, unknown> {
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
