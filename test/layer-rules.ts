/**
 * The layers of src/ and what each may import: the one place the architecture's
 * import rules are written down. `layers.test.ts` checks every import of the compiled
 * library (run-time imports and type imports alike) against them, with madge's graph.
 * A folder is named by its path under src/; '.' is the top level (index.ts, the
 * library's exports). A layer may always import within itself.
 */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  // Shared utilities: nothing above them.
  util: [],
  // The neutral timeline: the data shape every layer meets at; it imports nothing else.
  timeline: [],
  // The run's clock, deadlines, sliced work and the client's own delay probe.
  runtime: ['util'],
  audio: ['util'],
  data: ['audio', 'util'],
  // Pure schedules: who starts when.
  load: ['timeline', 'runtime', 'util'],
  views: ['timeline', 'util'],
  // Figures are computed on views; never on a schedule, a report or a run.
  metrics: ['views', 'timeline', 'runtime', 'util'],
  report: ['metrics', 'views', 'load', 'data', 'timeline', 'runtime', 'util'],
  // The runners, the wire dialects and the simulated server meet at the dialects' specs
  // (see SIMULATED below for what the server may take from a dialect folder).
  session: ['dialects', 'audio', 'data', 'timeline', 'runtime', 'util'],
  dialects: ['server', 'audio', 'data', 'timeline', 'runtime', 'util'],
  server: ['dialects', 'metrics', 'audio', 'data', 'timeline', 'runtime', 'util'],
  // The built-in server composed: the host with every dialect's simulated session handed to it, and its thread.
  simulator: ['server', 'dialects', 'data', 'audio', 'timeline', 'runtime', 'util'],
  // Options checked into settings and a load plan (a replica gauge against the families scraping keeps).
  config: ['dialects', 'session', 'server', 'scrape', 'report', 'metrics', 'views', 'load', 'data', 'audio', 'timeline', 'runtime', 'util'],
  live: ['report', 'metrics', 'views', 'timeline', 'runtime', 'util'],
  // Server metrics polled during a run: the report's telemetry types, the clock.
  scrape: ['report', 'runtime', 'util'],
  proxy: ['live', 'dialects', 'session', 'report', 'metrics', 'views', 'data', 'audio', 'timeline', 'runtime', 'util'],
  // Run orchestration: the run, its context, the level executor and its worker threads.
  run: ['config', 'scrape', 'simulator', 'server', 'dialects', 'session', 'report', 'metrics', 'views', 'load', 'data', 'audio', 'timeline', 'runtime', 'util'],
  // The library's exports: everything but the CLI.
  '.': [
    'run',
    'config',
    'proxy',
    'live',
    'scrape',
    'simulator',
    'server',
    'dialects',
    'session',
    'report',
    'metrics',
    'views',
    'load',
    'data',
    'audio',
    'timeline',
    'runtime',
    'util',
  ],
  // Only the CLI imports the CLI.
  cli: ['*'],
};

/** Imports between two modules that no layer may have, whatever the layers allow. */
export const FORBIDDEN: ReadonlyArray<{ from: RegExp; to: RegExp; why: string }> = [
  {
    from: /^server\//,
    to: /^metrics\/normalizers\//,
    why: "the simulated server does not score transcripts; it shares no normalizer with the client's figures",
  },
];

/**
 * The simulated server and the client dialects share only the dialects' specs: the host
 * (server/) imports from dialects/ only specs, being handed the dialects' sessions by
 * src/simulator/; a dialect folder's simulated.ts imports from dialects/ only specs and
 * other simulated modules; and the client's registry reaches none of them.
 */
export const SIMULATED = {
  host: (path: string): boolean => path.startsWith('server/'),
  session: (path: string): boolean => /^dialects\/[^/]+\/simulated\.js$/.test(path),
  shared: (path: string): boolean => /^dialects\/([^/]+\/)?spec\.js$/.test(path),
};

/**
 * Layers that read reports, and so never load, at run time, a module that starts a
 * run's worker threads (`new Worker(`: the built-in server, the run's workers, the stamp
 * probe), but for READER_THREADS, which start threads of their own.
 */
export const NO_WORKERS: readonly string[] = ['report', 'metrics', 'views', 'timeline', 'load', 'util'];

/** The modules whose threads read a session log in parts, and share a large bootstrap's resamples (issue 38). */
export const READER_THREADS: readonly string[] = ['report/digest-log.js', 'metrics/bootstrap.js'];

/** The layer of a module, by its path under src/ (`report/schema.js` is in `report`). */
export const layerOf = (path: string): string => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '.');
