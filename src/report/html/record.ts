import type { BenchmarkSummary } from '../../metrics/compute.js';
import type { Report } from '../schema.js';
import { formatPlain } from './format.js';
import { replicasSource } from '../cost-text.js';
import { benchmarksByLevel } from '../levels.js';
import { html, type Html } from './markup.js';
import { note, table, type Section } from './section.js';

type Scalar = string | number | boolean | null;

/**
 * Optional parts a newer report may carry: the reproducibility record (section →
 * key → value) and a per-level cost object. They are read structurally and rendered
 * generically, so new keys show up without a change here.
 */
type RecordSections = Record<string, Record<string, Scalar>>;
type WithRecord = Report & { record?: unknown };
type WithCost = BenchmarkSummary & { cost?: unknown };

/** Everything needed to rerun the benchmark and compare it: settings, machine, data, and the record. */
export function recordSection(report: Report): Section {
  const { problems, ...dataset } = report.dataset;
  const record = recordSections(report);
  const costs = benchmarksByLevel(report).flatMap((b) => {
    const cost = numbers((b.summary as WithCost).cost);
    return cost ? [{ level: b.label, cost, from: b.summary.cost?.replicasFrom ? replicasSource(b.summary.cost) : undefined }] : [];
  });
  const costKeys = [...new Set(costs.flatMap((c) => Object.keys(c.cost)))];
  const fromGauge = costs.some((c) => c.from !== undefined);
  return {
    id: 'record',
    title: 'Reproducibility record',
    charts: [],
    body: html`<div class="grid record">
${keyValues('Run', { schema: `${report.schema} v${report.version}`, voxbench: report.voxbenchVersion, startedAt: report.startedAt, stoppedBy: report.stoppedBy ?? null })}
${keyValues('Environment', flatten(report.environment))}
${keyValues('Dataset', flatten(dataset))}
${keyValues('Configuration', flatten(report.config))}
${Object.entries(record ?? {}).map(([name, values]) => keyValues(name, values))}
</div>
${
  problems.length > 0
    ? html`<h3 class="subhead">Dataset problems</h3>${table(
        ['file', 'reason'],
        problems.map((p) => [p.file, p.reason]),
      )}`
    : ''
}
${
  costs.length > 0
    ? html`<h3 class="subhead">Cost</h3>${table(
        ['level', ...costKeys, ...(fromGauge ? ['replicas from'] : [])],
        costs.map((c) => [
          c.level,
          ...costKeys.map((k) => (c.cost[k] === undefined ? '–' : formatPlain(c.cost[k]))),
          ...(fromGauge ? [c.from ?? 'given'] : []),
        ]),
      )}`
    : ''
}
${record ? '' : note('This report carries no deployment record (GPU, runtime version, replicas); the settings above are what voxbench knows.')}`,
  };
}

function keyValues(title: string, values: Record<string, Scalar>): Html {
  return html`<div class="kv"><h3>${title}</h3><dl>${Object.entries(values).map(([k, v]) => html`<dt>${k}</dt><dd>${v === null ? '–' : String(v)}</dd>`)}</dl></div>`;
}

/** Nested settings as dotted keys; lists of plain values joined, anything else as JSON. */
function flatten(value: object, prefix = ''): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = prefix + key;
    if (v === undefined) continue;
    if (v === null || typeof v !== 'object') out[name] = v as Scalar;
    else if (Array.isArray(v)) out[name] = v.every((item) => item === null || typeof item !== 'object') ? v.join(', ') : JSON.stringify(v);
    else Object.assign(out, flatten(v as object, `${name}.`));
  }
  return out;
}

function isScalar(value: unknown): value is Scalar {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function recordSections(report: Report): RecordSections | undefined {
  const record = (report as WithRecord).record;
  if (!isPlainObject(record)) return undefined;
  const sections = Object.entries(record as Record<string, unknown>).filter((entry): entry is [string, Record<string, unknown>] => isPlainObject(entry[1]));
  return Object.fromEntries(
    sections.map(([name, values]) => [name, Object.fromEntries(Object.entries(values).filter(([, v]) => isScalar(v)))]),
  ) as RecordSections;
}

function numbers(value: unknown): Record<string, number> | undefined {
  if (!isPlainObject(value)) return undefined;
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
}
