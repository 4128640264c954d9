import { storeValues } from './sample-store.js';

/** Scalar metric values of one session: session-scoped ones, one set per input and one per response. */
export interface SessionMetrics {
  session: Record<string, number>;
  inputs: Array<Record<string, number>>;
  responses: Array<Record<string, number>>;
}

/** Which metrics a session has values of, per row (the session's, each input's, each response's), in the order the values lie. */
export interface Layout {
  session: readonly string[];
  inputs: ReadonlyArray<readonly string[]>;
  responses: ReadonlyArray<readonly string[]>;
}

/** One row of values to store: the metrics with a value, and the values. */
export interface MetricRow {
  names: string[];
  values: number[];
}

/**
 * A session's scalar metric values, kept in the shared `Float64Array` chunks of the
 * sample store instead of an object per row with a boxed number per value: a report
 * holds every session's values until its outputs are written, and those objects were
 * the largest part of what it held and what the collector traced (issue 38). Which
 * metrics have values is one `Layout` shared by the sessions alike. The rows are made
 * again when read, the last session's kept, so a reader asking for the same row twice
 * gets the same object; they are the same as the rows stored, key order included.
 */
export class StoredMetrics implements SessionMetrics {
  constructor(
    readonly layout: Layout,
    readonly chunk: Float64Array,
    readonly at: number,
  ) {}

  get session(): Record<string, number> {
    if (last.session.of !== this) last.session = { of: this, rows: rowOf(this.layout.session, this.chunk, this.at) };
    return last.session.rows;
  }

  get inputs(): Array<Record<string, number>> {
    if (last.inputs.of !== this) last.inputs = { of: this, rows: this.rows(this.layout.inputs, this.at + this.layout.session.length) };
    return last.inputs.rows;
  }

  get responses(): Array<Record<string, number>> {
    if (last.responses.of !== this) {
      let at = this.at + this.layout.session.length;
      for (const names of this.layout.inputs) at += names.length;
      last.responses = { of: this, rows: this.rows(this.layout.responses, at) };
    }
    return last.responses.rows;
  }

  /** How many values it holds, from `at` on. */
  get size(): number {
    let size = this.layout.session.length;
    for (const names of this.layout.inputs) size += names.length;
    for (const names of this.layout.responses) size += names.length;
    return size;
  }

  /** As `report.json` stores a session's metrics. */
  toJSON(): SessionMetrics {
    return { session: this.session, inputs: this.inputs, responses: this.responses };
  }

  private rows(layout: ReadonlyArray<readonly string[]>, at: number): Array<Record<string, number>> {
    return layout.map((names) => {
      const row = rowOf(names, this.chunk, at);
      at += names.length;
      return row;
    });
  }
}

/** Which row of a session's metrics a value is in. */
export type MetricRowKind = 'session' | 'input' | 'response';

/**
 * Each of a session's metric values with its row's kind and its metric's name, row by row
 * in stored order (the session's, then each input's, then each response's): read where
 * they lie, without making the rows, where they are stored (a report of 100,000 sessions
 * reads them so for every pooled figure and chart), else from the rows. Figures copied by
 * `structuredClone` keep where the values lie without the class; copied as JSON, the rows.
 */
export function eachMetricValue(metrics: SessionMetrics, visit: (row: MetricRowKind, name: string, value: number) => void): void {
  const place = storedPlace(metrics);
  if (place) {
    eachLayoutName(place.layout, (row, name, k) => visit(row, name, place.chunk[place.at + k]!));
    return;
  }
  for (const name in metrics.session) visit('session', name, metrics.session[name]!);
  for (const row of metrics.inputs) for (const name in row) visit('input', name, row[name]!);
  for (const row of metrics.responses) for (const name in row) visit('response', name, row[name]!);
}

/** Where a session's metric values lie when they are stored (its `StoredMetrics`, or a `structuredClone` of one); undefined for rows. */
export function storedPlace(metrics: SessionMetrics): Pick<StoredMetrics, 'layout' | 'chunk' | 'at'> | undefined {
  return 'layout' in metrics ? (metrics as unknown as Pick<StoredMetrics, 'layout' | 'chunk' | 'at'>) : undefined;
}

/** Each metric a layout names with its row's kind, in stored order, with its value's place from the first (`k`). */
export function eachLayoutName(layout: Layout, visit: (row: MetricRowKind, name: string, k: number) => void): void {
  let k = 0;
  for (const name of layout.session) visit('session', name, k++);
  for (const names of layout.inputs) for (const name of names) visit('input', name, k++);
  for (const names of layout.responses) for (const name of names) visit('response', name, k++);
}

/** The rows last made, one session's of each kind. */
const last = {
  session: { of: undefined as StoredMetrics | undefined, rows: {} as Record<string, number> },
  inputs: { of: undefined as StoredMetrics | undefined, rows: [] as Array<Record<string, number>> },
  responses: { of: undefined as StoredMetrics | undefined, rows: [] as Array<Record<string, number>> },
};

function rowOf(names: readonly string[], chunk: Float64Array, at: number): Record<string, number> {
  const row: Record<string, number> = {};
  for (let i = 0; i < names.length; i++) row[names[i]!] = chunk[at + i]!;
  return row;
}

/** A session's rows stored: the session's, then each input's, then each response's values, in one run of a chunk. */
export function storeMetrics(session: MetricRow, inputs: readonly MetricRow[], responses: readonly MetricRow[]): StoredMetrics {
  const rows = [session, ...inputs, ...responses];
  const { chunk, at } = storeValues(rows.flatMap((r) => r.values));
  return new StoredMetrics(layoutOf(session, inputs, responses, rows), chunk, at);
}

/** The layout of these rows, one copy for every session alike (up to SHARED distinct ones, the rest each their own). */
function layoutOf(session: MetricRow, inputs: readonly MetricRow[], responses: readonly MetricRow[], rows: readonly MetricRow[]): Layout {
  const key = `${inputs.length}|${rows.map((r) => r.names.join(',')).join('|')}`;
  let layout = layouts.get(key);
  if (layout === undefined) {
    layout = { session: session.names, inputs: inputs.map((r) => r.names), responses: responses.map((r) => r.names) };
    if (layouts.size < SHARED) layouts.set(key, layout);
  }
  return layout;
}
const layouts = new Map<string, Layout>();
const SHARED = 10_000;
