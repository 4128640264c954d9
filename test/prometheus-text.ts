/**
 * A strict parser of Prometheus's text exposition format (version 0.0.4), for tests:
 * `# HELP` and `# TYPE` lines, and samples `name{label="value",...} value`, label
 * values with their `\\`, `\"` and `\n` escapes. Every sample must belong to a family
 * declared by `# TYPE` (a histogram's `_bucket`, `_sum` and `_count` to its family),
 * and anything else is an error, so a malformed exposition fails the test that reads it.
 * (The npm parser, parse-prometheus-text-format, drops the labels of labelled histograms.)
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count'] };

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  for (const [n, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const fail = (why: string): never => {
      throw new Error(`line ${n + 1}: ${why}: ${line}`);
    };
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name, rest = ''] = meta;
      const family = families.get(name!) ?? { name: name!, type: 'untyped' as const, help: '', samples: [] };
      families.set(name!, family);
      if (kind === 'HELP') family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      else if (['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) family.type = rest as Family['type'];
      else fail('unknown type');
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line) ?? fail('not a sample');
    const [, name, labelText = '', valueText] = match;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < labelText.length) {
      const label = LABEL.exec(labelText) ?? fail('malformed labels');
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') fail('not a number');
    const family =
      families.get(name!) ??
      [...families.values()].find((f) => (SUFFIXES[f.type] ?? []).some((s) => name === f.name + s)) ??
      fail('a sample of no declared family');
    family.samples.push({ name: name!, labels, value });
  }
  return families;
}
