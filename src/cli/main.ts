#!/usr/bin/env node
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../config.js';
import { DatasetError } from '../data/errors.js';
import { ReportError } from '../report/recompute.js';
import { SessionLogError } from '../report/session-log.js';
import { EXIT } from '../run-outcome.js';
import { describeMetrics } from '../metrics/catalog.js';
import { spanText } from '../report/picks.js';
import { VERSION } from '../version.js';
import { datasetCommand } from './dataset-command.js';
import { reportCommand } from './report-command.js';
import { runCommand } from './run-command.js';
import { serveCommand } from './serve-command.js';

const metricsCommand = new Command('metrics')
  .description('List every metric with its unit, start and end events, and meaning.')
  .action(() => {
    for (const m of describeMetrics()) {
      const per = { session: 'session', input: 'turn', input_samples: 'turn', response: 'response', corpus: 'corpus' }[m.scope];
      process.stdout.write(`${m.name} [${m.unit}, per ${per}]\n  ${spanText(m)}\n  ${m.description} Tasks: ${m.tasks.join(', ')}.\n`);
    }
  });

/** Errors prefixed with the program name, a hint to --help, and usage errors exiting with 2. */
function conventions<T extends CommandUnknownOpts>(command: T): T {
  command
    .configureOutput({ outputError: (text, write) => write(`voxbench: ${text}`) })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride((err) => process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage));
  return command;
}

const program = conventions(new Command())
  .name('voxbench')
  .description('Benchmark realtime speech servers over WebSockets the way live applications use them.')
  .version(VERSION);
// addCommand does not copy settings to a command built on its own, so each gets them too.
for (const command of [runCommand, serveCommand, reportCommand, datasetCommand, metricsCommand]) program.addCommand(conventions(command));

try {
  await program.parseAsync();
} catch (err) {
  if (err instanceof UsageError || err instanceof DatasetError || err instanceof ReportError) {
    process.stderr.write(`voxbench: error: ${err.message}\n`);
    process.exitCode = EXIT.usage;
  } else if (err instanceof SessionLogError) {
    process.stderr.write(`voxbench: error: ${err.message}\n`);
    process.exitCode = EXIT.internal;
  } else if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(`voxbench: error: ${(err as Error).message}: the port is taken; choose another with --port (0 picks a free one)\n`);
    process.exitCode = EXIT.usage;
  } else if ((err as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') {
    process.stderr.write(`voxbench: error: ${(err as Error).message}: no interface has that address; choose another with --host\n`);
    process.exitCode = EXIT.usage;
  } else {
    process.stderr.write(`voxbench: internal error: ${(err as Error).message}\n${process.env.VOXBENCH_DEBUG ? (err as Error).stack + '\n' : ''}`);
    process.exitCode = EXIT.internal;
  }
}
