import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Counter, Histogram } from 'prom-client';
import { LiveMetrics } from '../src/live/metrics.js';
import { serveRunMetrics } from '../src/live/run-metrics.js';
import { run } from '../src/run/run.js';
import { parsePrometheusText } from './prometheus-text.js';

const DASHBOARD = fileURLToPath(new URL('../../deploy/grafana/voxbench-dashboard.json', import.meta.url));

/** The labels Prometheus adds to every series it scrapes (its target's), besides voxbench's own. */
const TARGET_LABELS = ['instance', 'job'];
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { uid: string };
  targets?: Array<{ expr: string; datasource?: { uid: string } }>;
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: string | { query: string } }> };
}

const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as Dashboard;
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const exprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const variableQueries = dashboard.templating.list.flatMap((v) => (v.type === 'query' ? [typeof v.query === 'string' ? v.query : v.query.query] : []));

/** What voxbench exports, from the live registry that `run --metrics-port` and the proxy serve (and docs/reference/prometheus.md lists). */
const FAMILIES = new Map(
  new LiveMetrics().registry.getMetricsAsArray().map((m) => {
    const { name, labelNames } = m as unknown as { name: string; labelNames: string[] };
    return [name, { type: m instanceof Histogram ? 'histogram' : m instanceof Counter ? 'counter' : 'gauge', labels: labelNames }] as const;
  }),
);

/** The family a queried series belongs to: its own name, or a histogram's with `_bucket`, `_sum` or `_count`. */
function familyOf(series: string): { name: string; type: string; labels: readonly string[] } | undefined {
  const own = FAMILIES.get(series);
  if (own) return own.type === 'histogram' ? undefined : { name: series, ...own };
  for (const suffix of HISTOGRAM_SUFFIXES) {
    const family = series.endsWith(suffix) ? FAMILIES.get(series.slice(0, -suffix.length)) : undefined;
    if (family?.type === 'histogram')
      return { name: series.slice(0, -suffix.length), ...family, labels: [...family.labels, ...(suffix === '_bucket' ? ['le'] : [])] };
  }
  return undefined;
}

const seriesIn = (query: string): string[] => [...query.matchAll(/\b(voxbench_[a-z_]+)\b/g)].map((m) => m[1]!);

describe('the Grafana dashboard (deploy/grafana)', () => {
  it('queries only series voxbench exports, by labels they carry, counters as rates', () => {
    assert.ok(exprs.length >= 15, `${exprs.length} panel queries`);
    for (const query of [...exprs, ...variableQueries]) {
      const series = seriesIn(query);
      assert.ok(series.length > 0, `queries no voxbench series: ${query}`);
      for (const name of series) assert.ok(familyOf(name), `${name} is not a series voxbench exports (docs/reference/prometheus.md): ${query}`);
      for (const [, name, matchers] of query.matchAll(/\b(voxbench_[a-z_]+)\{([^}]*)\}/g)) {
        const allowed = [...familyOf(name!)!.labels, ...TARGET_LABELS];
        for (const [, label] of matchers!.matchAll(/([a-z_]+)\s*(?:=~|!~|!=|=)\s*"/g))
          assert.ok(allowed.includes(label!), `${name} has no label ${label}: ${query}`);
      }
      const carried = new Set([...series.flatMap((name) => familyOf(name)!.labels), ...TARGET_LABELS]);
      for (const [, labels] of query.matchAll(/\bby \(([^)]*)\)/g))
        for (const label of labels!.split(',').map((l) => l.trim())) assert.ok(carried.has(label), `no queried series carries ${label}: ${query}`);
      for (const [, label] of query.matchAll(/label_values\([^,]+,\s*([a-z_]+)\)/g)) assert.ok(carried.has(label!), `label_values of ${label}: ${query}`);
      // A counter's (or a histogram's) value only grows: a panel shows its rate, never the running total.
      for (const name of series) {
        if (familyOf(name)!.type === 'gauge' || query.startsWith('label_values(')) continue;
        assert.match(query, new RegExp(`\\b(?:rate|increase)\\(${name}\\b`), `${name} outside rate() or increase(): ${query}`);
      }
      for (const [, values] of query.matchAll(/\boutcome=~?"([^"]*)"/g))
        for (const value of values!.split('|')) assert.ok(['completed', 'failed', 'incomplete'].includes(value), `outcome ${value}: ${query}`);
    }
    // Every exported family has a panel, so a metric added to the registry is added here too.
    const shown = new Set(exprs.flatMap(seriesIn).map((name) => familyOf(name)!.name));
    assert.deepEqual(
      [...FAMILIES.keys()].filter((name) => !shown.has(name)),
      [],
    );
  });

  it("finds every queried series, and values for its latency variable, in a real run's /metrics", async () => {
    const live = await serveRunMetrics({ host: '127.0.0.1', port: 0 });
    let text: string;
    try {
      await run({
        maxSessions: 2,
        pace: { kind: 'none' },
        onRunStart: (config) => live.runStart(config),
        onSessionStart: () => live.sessionStart(),
        onSessionEnd: (record) => live.sessionEnd(record),
      });
      text = await (await fetch(`${live.endpoint.url}/metrics`)).text();
    } finally {
      await live.close();
    }
    const families = parsePrometheusText(text);
    const sampled = new Set([...families.values()].flatMap((f) => f.samples.map((s) => s.name)));
    for (const name of new Set(exprs.flatMap(seriesIn))) {
      const family = familyOf(name)!.name;
      assert.ok(families.has(family), `${family} is not served`);
      // Refused upgrades are the one series a healthy run leaves empty.
      if (family !== 'voxbench_upgrade_failures_total') assert.ok(sampled.has(name), `no ${name} sample after a run`);
    }
    const latencies = families.get('voxbench_latency_seconds')!.samples.map((s) => s.labels.metric);
    assert.ok(latencies.includes('ttft'), `the latency variable's values: ${[...new Set(latencies)].join(', ')}`);
  });

  it('imports into Grafana as it stands: unique ids, panels within the 24-column grid, the data source chosen by a variable', () => {
    assert.equal(dashboard.uid, 'voxbench-live');
    const ids = panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
    for (const p of panels) {
      assert.ok(p.gridPos.x >= 0 && p.gridPos.w > 0 && p.gridPos.x + p.gridPos.w <= 24, `${p.title} fits the grid`);
      if (p.type !== 'row') {
        assert.equal(p.datasource?.uid, '${datasource}', `${p.title}'s data source`);
        for (const t of p.targets ?? []) assert.equal(t.datasource?.uid, '${datasource}');
      }
    }
    assert.ok(dashboard.templating.list.some((v) => v.type === 'datasource' && v.name === 'datasource'));
    // Every variable a query uses is defined.
    const defined = new Set(dashboard.templating.list.map((v) => v.name));
    for (const query of [...exprs, ...variableQueries])
      for (const [, name] of query.matchAll(/\$([a-z_]+)/g)) assert.ok(name!.startsWith('__') || defined.has(name!), `$${name} in ${query}`);
  });
});
