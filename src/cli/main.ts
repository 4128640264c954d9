#!/usr/bin/env -S node --initial-old-space-size=256
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { printable } from '../util/printable.js';
import { EXIT } from '../run/run-outcome.js';
import { VERSION } from '../util/version.js';
import { outliveClosedOutput } from './closed-output.js';
import { formatItem, optionDescription, padWidth } from './help.js';

/**
 * Each command's module, loaded only when it runs: a command's code (a run's, a
 * render's) is most of the process's start, and `voxbench report render` should not
 * pay for loading the run and the server. The top-level help and an unknown or
 * missing command load them all, in this order; `--version` loads none.
 */
const COMMANDS: Record<string, () => Promise<CommandUnknownOpts>> = {
  run: async () => (await import('./run-command.js')).runCommand,
  serve: async () => (await import('./serve-command.js')).serveCommand,
  proxy: async () => (await import('./proxy-command.js')).proxyCommand,
  replay: async () => (await import('./replay-command.js')).replayCommand,
  report: async () => (await import('./report-command.js')).reportCommand,
  dataset: async () => (await import('./dataset-command.js')).datasetCommand,
  cache: async () => (await import('./cache-command.js')).cacheCommand,
  metrics: async () => (await import('./metrics-command.js')).metricsCommand,
};

/** Parser errors on one line, prefixed with the program name and ending with a hint to --help; usage errors exit with 2; defaults in help as the README writes them. */
function conventions<T extends CommandUnknownOpts>(command: T): T {
  command
    .configureHelp({ optionDescription, padWidth, formatItem })
    .configureOutput({ outputError: (text, write) => write(`voxbench: ${printable(text).trim()} (run with --help for usage)\n`) })
    .exitOverride((err) => process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage));
  return command;
}

const program = conventions(new Command())
  .name('voxbench')
  .description('Benchmark realtime speech servers over WebSockets the way live applications use them.')
  .version(VERSION);
const named = process.argv[2];
const loading =
  named !== undefined && Object.hasOwn(COMMANDS, named) ? [COMMANDS[named]!] : named === '--version' || named === '-V' ? [] : Object.values(COMMANDS);
// addCommand does not copy settings to a command built on its own, so each gets them too.
for (const command of await Promise.all(loading.map((load) => load()))) program.addCommand(conventions(command));

/** One line on stderr: messages quote flags, file names and file contents, which may hold newlines or escapes. */
const fail = (text: string): void => void process.stderr.write(`voxbench: ${printable(text)}\n`);

outliveClosedOutput();
try {
  await program.parseAsync();
} catch (err) {
  // Loaded only on an error: the flag table imports every option's parser, which a command that succeeds may never need.
  const [{ OptionsError }, { UsageError }, { flagMessage }, { DatasetError }, { ReportError }, { ShapeError }, { DamagedLogError, SessionLogError }] =
    await Promise.all([
      import('../config/errors.js'),
      import('../util/errors.js'),
      import('./option-flags.js'),
      import('../data/errors.js'),
      import('../report/report-error.js'),
      import('../load/traffic-shape.js'),
      import('../report/session-log.js'),
    ]);
  const message = err instanceof OptionsError ? flagMessage(err) : (err as Error).message;
  if (err instanceof UsageError || err instanceof DatasetError || err instanceof ReportError || err instanceof DamagedLogError || err instanceof ShapeError) {
    fail(`error: ${message}`);
    process.exitCode = EXIT.usage;
  } else if (err instanceof SessionLogError) {
    fail(`error: ${message}`);
    process.exitCode = EXIT.internal;
  } else if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    fail(`error: ${message}: the port is taken; choose another with --port (0 picks a free one)`);
    process.exitCode = EXIT.usage;
  } else if ((err as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') {
    fail(`error: ${message}: no interface has that address; choose another with --host`);
    process.exitCode = EXIT.usage;
  } else {
    fail(`internal error: ${message}`);
    if (process.env.VOXBENCH_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = EXIT.internal;
  }
}
