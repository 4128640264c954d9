/**
 * The samples of a session's `input_samples` metrics (a value per chunk sent, per word
 * emitted), kept in shared `Float64Array` chunks instead of a list per metric per
 * session: a report holds every session's figures until its level is summarized, and
 * at 100,000 sessions those lists were a quarter of the figures held and a large part
 * of what the collector had to trace (issue 38). A session keeps a handle, three fields;
 * a chunk is freed once no handle refers to it.
 */
export interface StoredSamples {
  /** The metrics, in the order their values lie. */
  names: readonly string[];
  chunk: Float64Array;
  /** Where the first metric's count lies: each metric is its count, then its values. */
  at: number;
}

/** Doubles per chunk (512 KiB): a session's samples are tens of values, so most fit in the chunk being filled. */
const CHUNK = 1 << 16;
let chunk: Float64Array | undefined;
let used = 0;

/** The lists, one per metric of `names` in that order, copied into the chunk being filled. */
export function storeSamples(names: readonly string[], lists: ReadonlyArray<readonly number[]>): StoredSamples {
  let size = lists.length;
  for (const list of lists) size += list.length;
  const { chunk: into, at } = room(size);
  let k = at;
  for (const list of lists) {
    into[k++] = list.length;
    into.set(list, k);
    k += list.length;
  }
  return { names, chunk: into, at };
}

/** Where `size` doubles lie free in a chunk: the chunk being filled, or a new one; they are taken (`used` moves past them). */
function room(size: number): { chunk: Float64Array; at: number } {
  if (chunk === undefined || size > CHUNK - used) {
    chunk = new Float64Array(Math.max(CHUNK, size));
    used = 0;
  }
  const at = used;
  used += size;
  return { chunk, at };
}

/** `values` copied into the chunk being filled: where they lie. */
export function storeValues(values: readonly number[]): { chunk: Float64Array; at: number } {
  const stored = room(values.length);
  stored.chunk.set(values, stored.at);
  return stored;
}

/** How many doubles a session's samples take, from `at` on: each metric's count and values. */
export function samplesSize(samples: StoredSamples): number {
  let at = samples.at;
  for (let i = 0; i < samples.names.length; i++) at += 1 + samples.chunk[at]!;
  return at - samples.at;
}

/** Each metric's values, in order, as `visit(name, chunk, from, to)`: its values are `chunk[from]` to `chunk[to - 1]`. */
export function eachSamples(samples: StoredSamples, visit: (name: string, chunk: Float64Array, from: number, to: number) => void): void {
  const { names, chunk } = samples;
  let at = samples.at;
  for (const name of names) {
    const to = at + 1 + chunk[at]!;
    visit(name, chunk, at + 1, to);
    at = to;
  }
}
