import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import madge from 'madge';

/** The compiled library, next to this compiled test: dist/src. */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

type Graph = Record<string, string[]>;

/**
 * Every import between src/ modules, keyed by path relative to src/ (`report/schema.js`).
 * The .js files hold the imports that load at run time; type-only imports are erased
 * from them, so the declarations (.d.ts) beside them add those that a module's
 * exported types rest on (schema.ts imports nothing else).
 */
async function importGraph(dir: string): Promise<Graph> {
  const runtime = (await madge(dir, { fileExtensions: ['js'] })).obj();
  const declared = (await madge(dir, { fileExtensions: ['ts'], detectiveOptions: { ts: { skipTypeImports: false } } })).obj();
  const asJs = (path: string): string => path.replace(/\.d\.ts$/, '.js');
  const graph: Graph = {};
  for (const [from, to] of [...Object.entries(runtime), ...Object.entries(declared)]) {
    graph[asJs(from)] = [...new Set([...(graph[asJs(from)] ?? []), ...to.map(asJs)])].sort();
  }
  return graph;
}

/** Every module `from` reaches through imports, itself excluded. */
function reachable(graph: Graph, from: string): Set<string> {
  const seen = new Set<string>();
  const visit = (module: string): void => {
    for (const next of graph[module] ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        visit(next);
      }
    }
  };
  visit(from);
  return seen;
}

/** `from → to` for each import that breaks `allowed`. */
function violations(graph: Graph, allowed: (from: string, to: string) => boolean): string[] {
  return Object.entries(graph).flatMap(([from, tos]) => tos.filter((to) => !allowed(from, to)).map((to) => `${from} → ${to}`));
}

const graph = await importGraph(SRC);
const inCli = (path: string): boolean => path.startsWith('cli/');

describe('layers import one way', () => {
  it('reads the whole library', () => {
    // Guards the checks below against passing on an empty or half-read graph.
    assert.ok(graph['index.js'] && graph['report/schema.js'] && graph['cli/main.js'], Object.keys(graph).join(', '));
  });

  it('has no import cycle', async () => {
    const cycles = (await madge(graph)).circular();
    assert.deepEqual(cycles.map((cycle) => [...cycle, cycle[0]].join(' → ')), []);
  });

  it('keeps the report document below the run, its options, sessions, dialects, server and CLI', () => {
    const above = /^(config\.js|session\/|adapters\/|dialects\/|server\/|cli\/)/;
    assert.deepEqual([...reachable(graph, 'report/schema.js')].filter((path) => above.test(path)), []);
  });

  it('keeps views below the metrics (they arrange events; the metrics score them) and the metrics below the load', () => {
    const breaks = (from: string, to: string): boolean => (from.startsWith('views/') && to.startsWith('metrics/')) || (from.startsWith('metrics/') && to.startsWith('load/'));
    assert.deepEqual(violations(graph, (from, to) => !breaks(from, to)), []);
  });

  it('lets only the CLI import the CLI', () => {
    assert.deepEqual(violations(graph, (from, to) => inCli(from) || !inCli(to)), []);
  });

  it('keeps the proxy passive: it reaches no runner, no run and no server; the live metrics reach neither the proxy nor the run', () => {
    assert.ok(graph['proxy/proxy.js'] && graph['live/metrics.js']);
    assert.deepEqual([...reachable(graph, 'proxy/proxy.js')].filter((path) => /^(session\/(ws|http)-runner|run\.js|run-context|server\/)/.test(path)), []);
    assert.deepEqual([...reachable(graph, 'live/run-metrics.js')].filter((path) => /^(proxy\/|run\.js|session\/|server\/)/.test(path)), []);
  });

  it('keeps the simulated server and the client dialects apart: they share only the dialects\' specs', () => {
    const simulated = (path: string): boolean => path.startsWith('server/') || /^dialects\/[^/]+\/simulated\.js$/.test(path);
    const shared = (path: string): boolean => /^dialects\/([^/]+\/)?spec\.js$/.test(path);
    assert.ok(graph['server/simulated-dialects.js'] && graph['dialects/deepgram-aura/simulated.js'] && graph['dialects/deepgram-aura/spec.js']);
    assert.deepEqual(violations(graph, (from, to) => !simulated(from) || !to.startsWith('dialects/') || shared(to) || simulated(to)), []);
    assert.deepEqual([...reachable(graph, 'dialects/index.js')].filter(simulated), []);
  });

  it('keeps the timeline free of imports from other layers', () => {
    assert.deepEqual(violations(graph, (from, to) => !from.startsWith('timeline/') || to.startsWith('timeline/')), []);
  });
});
