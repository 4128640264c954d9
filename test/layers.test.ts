import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import madge from 'madge';
import { FORBIDDEN, LAYERS, layerOf, NO_WORKERS, READER_THREADS, SIMULATED } from './layer-rules.js';

/** The compiled library, next to this compiled test: dist/src. */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

type Graph = Record<string, string[]>;

/**
 * Every import between src/ modules, keyed by path relative to src/ (`report/schema.js`):
 * `runtime` from the .js files (the imports that load at run time; type-only imports are
 * erased from them), and `all` adding the declarations (.d.ts) beside them, which hold
 * those that a module's exported types rest on.
 */
async function importGraphs(dir: string): Promise<{ runtime: Graph; all: Graph }> {
  const runtime = (await madge(dir, { fileExtensions: ['js'] })).obj();
  const declared = (await madge(dir, { fileExtensions: ['ts'], detectiveOptions: { ts: { skipTypeImports: false } } })).obj();
  const asJs = (path: string): string => path.replace(/\.d\.ts$/, '.js');
  const all: Graph = {};
  for (const [from, to] of [...Object.entries(runtime), ...Object.entries(declared)]) {
    all[asJs(from)] = [...new Set([...(all[asJs(from)] ?? []), ...to.map(asJs)])].sort();
  }
  return { runtime, all };
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

const { runtime, all: graph } = await importGraphs(SRC);

describe('layers import one way', () => {
  it('reads the whole library', () => {
    // Guards the checks below against passing on an empty or half-read graph.
    assert.ok(graph['index.js'] && graph['report/schema.js'] && graph['cli/main.js'] && graph['run/run.js'], Object.keys(graph).join(', '));
  });

  it('declares every folder of src/ as a layer, and no layer that is not a folder', async () => {
    const folders = (await readdir(SRC, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    assert.deepEqual(
      folders.sort(),
      Object.keys(LAYERS)
        .filter((layer) => layer !== '.')
        .sort(),
    );
    assert.deepEqual(
      [...new Set(Object.values(LAYERS).flat())].filter((layer) => layer !== '*' && !(layer in LAYERS)),
      [],
    );
  });

  it('has no import cycle', async () => {
    const cycles = (await madge(graph)).circular();
    assert.deepEqual(
      cycles.map((cycle) => [...cycle, cycle[0]].join(' → ')),
      [],
    );
  });

  it('keeps each layer to the layers it may import (test/layer-rules.ts)', () => {
    const allowed = (from: string, to: string): boolean => {
      const [a, b] = [layerOf(from), layerOf(to)];
      return a === b || LAYERS[a]!.includes('*') || LAYERS[a]!.includes(b);
    };
    assert.deepEqual(violations(graph, allowed), []);
  });

  it('has none of the forbidden imports', () => {
    for (const rule of FORBIDDEN) {
      assert.deepEqual(
        violations(graph, (from, to) => !rule.from.test(from) || !rule.to.test(to)),
        [],
        rule.why,
      );
    }
  });

  it("keeps a run's worker threads out of what reads reports: none of those layers loads a module that starts one", async () => {
    const starters: string[] = [];
    for (const module of Object.keys(runtime)) {
      if ((await readFile(join(SRC, module), 'utf8')).includes('new Worker(')) starters.push(module);
    }
    // The threads a reader starts: a large session log read in parts, a large bootstrap's resamples shared.
    for (const module of READER_THREADS) {
      assert.ok(starters.includes(module), module);
      starters.splice(starters.indexOf(module), 1);
    }
    assert.ok(starters.includes('runtime/stamp-probe.js') && starters.includes('run/workers.js'), starters.join(', '));
    const readers = Object.keys(runtime).filter((module) => NO_WORKERS.includes(layerOf(module)));
    assert.ok(readers.includes('report/merge.js'));
    assert.deepEqual(
      readers.flatMap((module) => [...reachable(runtime, module)].filter((to) => starters.includes(to)).map((to) => `${module} → ${to}`)),
      [],
    );
  });

  it('keeps the proxy passive: it reaches no runner, no run and no server; the live metrics reach neither the proxy nor the run', () => {
    assert.ok(graph['proxy/proxy.js'] && graph['live/metrics.js']);
    assert.deepEqual(
      [...reachable(graph, 'proxy/proxy.js')].filter((path) => /^(session\/(ws|http)-runner|run\/|server\/)/.test(path)),
      [],
    );
    assert.deepEqual(
      [...reachable(graph, 'live/run-metrics.js')].filter((path) => /^(proxy\/|run\/|session\/|server\/)/.test(path)),
      [],
    );
  });

  it("keeps the simulated server and the client dialects apart: they share only the dialects' specs", () => {
    assert.ok(graph['simulator/registry.js'] && graph['dialects/deepgram-aura/simulated.js'] && graph['dialects/deepgram-aura/spec.js']);
    assert.deepEqual(
      violations(graph, (from, to) => !SIMULATED.host(from) || !to.startsWith('dialects/') || SIMULATED.shared(to)),
      [],
    );
    assert.deepEqual(
      violations(graph, (from, to) => !SIMULATED.session(from) || !to.startsWith('dialects/') || SIMULATED.shared(to) || SIMULATED.session(to)),
      [],
    );
    const simulatedSide = (path: string): boolean => SIMULATED.host(path) || SIMULATED.session(path);
    assert.deepEqual([...reachable(graph, 'dialects/index.js')].filter(simulatedSide), []);
  });
});
