/**
 * The Prometheus text exposition format (version 0.0.4, and the OpenMetrics text that
 * servers send in its place), read into metric families. The format is specified at
 * https://prometheus.io/docs/instrumenting/exposition_formats/ and
 * https://github.com/prometheus/OpenMetrics/blob/main/specification/OpenMetrics.md.
 *
 * Written here rather than taken from npm: the one parser there
 * (parse-prometheus-text-format 1.1.1) merges the buckets of every labelled series of a
 * histogram into one, dropping their labels, counts and sums, and drops the last family
 * of a text without a final newline; vLLM labels every histogram with `model_name`.
 */

export type FamilyType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface ExpositionSample {
  /** The sample's own name: a histogram's `x_bucket`, `x_sum`, `x_count`; a counter's `x_total`. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: FamilyType;
  samples: ExpositionSample[];
}

/** A text that is not the exposition format: its line number and what was wrong. */
export class ExpositionError extends Error {}

const TYPES = new Set<string>(['counter', 'gauge', 'histogram', 'summary', 'untyped', 'unknown', 'gaugehistogram', 'stateset', 'info']);
/** The suffixes a family's samples may carry beyond its name (OpenMetrics adds `_created`, `_gsum`, `_gcount`, `_info`). */
const SUFFIXES = ['_bucket', '_count', '_sum', '_total', '_created', '_gcount', '_gsum', '_info'];
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** The families of one scrape, in the order they appear; a line that is not the format throws an `ExpositionError`. */
export function parseExposition(text: string): MetricFamily[] {
  const families = new Map<string, MetricFamily>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      if (line.startsWith('#')) readComment(line, families);
      else addSample(families, readSample(line));
    } catch (err) {
      if (err instanceof ExpositionError) throw new ExpositionError(`line ${i + 1}: ${err.message}`);
      throw err;
    }
  }
  return [...families.values()];
}

function readComment(line: string, families: Map<string, MetricFamily>): void {
  const [hash, keyword, name, type] = line.split(/\s+/);
  // HELP, UNIT, EOF and free comments carry nothing a series needs.
  if (hash !== '#' || keyword !== 'TYPE') return;
  if (name === undefined || !NAME.test(name) || type === undefined) throw new ExpositionError(`a TYPE line needs a metric name and a type`);
  if (!TYPES.has(type)) throw new ExpositionError(`unknown metric type ${JSON.stringify(type.slice(0, 40))}`);
  const family = families.get(name);
  const kind = typeOf(type);
  if (family && family.samples.length > 0) throw new ExpositionError(`TYPE of ${name} after its samples`);
  families.set(name, { name, type: kind, samples: family?.samples ?? [] });
}

/** OpenMetrics' extra types as the nearest 0.0.4 type: a gauge histogram is read as a histogram, an info or a state set as a gauge. */
function typeOf(type: string): FamilyType {
  if (type === 'unknown') return 'untyped';
  if (type === 'gaugehistogram') return 'histogram';
  if (type === 'info' || type === 'stateset') return 'gauge';
  return type as FamilyType;
}

/** A sample joins the family TYPE declared under its name, or under its name less a suffix; else a family of its own, untyped. */
function addSample(families: Map<string, MetricFamily>, sample: ExpositionSample): void {
  let family = families.get(sample.name);
  if (!family) {
    for (const suffix of SUFFIXES) {
      if (!sample.name.endsWith(suffix)) continue;
      const base = families.get(sample.name.slice(0, -suffix.length));
      if (base && base.type !== 'gauge' && base.type !== 'untyped') family = base;
    }
  }
  if (!family) families.set(sample.name, (family = { name: sample.name, type: 'untyped', samples: [] }));
  family.samples.push(sample);
}

/** `name{label="value",...} value [timestamp]`; the timestamp is ignored (the scrape is stamped on the run's clock). */
function readSample(line: string): ExpositionSample {
  let at = 0;
  while (at < line.length && !/[\s{]/.test(line[at]!)) at++;
  const name = line.slice(0, at);
  if (!NAME.test(name)) throw new ExpositionError(`not a metric name: ${JSON.stringify(name.slice(0, 40))}`);
  const labels: Record<string, string> = {};
  if (line[at] === '{') at = readLabels(line, at + 1, labels);
  const [value, timestamp, extra] = line.slice(at).trim().split(/\s+/);
  // OpenMetrics exemplars follow a ` # `; nothing else may.
  if (value === undefined || value === '' || (extra !== undefined && timestamp !== '#' && extra !== '#'))
    throw new ExpositionError(`${name}: expected a value and at most a timestamp`);
  return { name, labels, value: readNumber(value, name) };
}

function readLabels(line: string, from: number, labels: Record<string, string>): number {
  let at = from;
  for (;;) {
    while (line[at] === ' ' || line[at] === ',') at++;
    if (line[at] === '}') return at + 1;
    const eq = line.indexOf('=', at);
    const label = eq < 0 ? '' : line.slice(at, eq).trim();
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(label) || line[eq + 1] !== '"') throw new ExpositionError(`malformed label at column ${at + 1}`);
    let value = '';
    at = eq + 2;
    for (;;) {
      const c = line[at++];
      if (c === undefined) throw new ExpositionError(`unterminated label value of ${label}`);
      if (c === '"') break;
      if (c === '\\') {
        const next = line[at++];
        value += next === 'n' ? '\n' : (next ?? '');
      } else value += c;
    }
    labels[label] = value;
  }
}

function readNumber(text: string, name: string): number {
  const lower = text.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  if (lower === 'nan') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new ExpositionError(`${name}: not a number: ${JSON.stringify(text.slice(0, 40))}`);
  return value;
}
