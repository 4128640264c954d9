#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { DatasetError, loadFolderDataset } from '../data/folder.js';
import { BUNDLED_SAMPLES_DIR } from '../data/bundled.js';
import { PROFILE_KINDS, type LoadProfile } from '../load/profiles.js';
import { METRICS } from '../metrics/catalog.js';
import { renderSummary } from '../report/console.js';
import { PROTOCOLS, run, UsageError } from '../run.js';
import { DEFAULT_LATENCY } from '../server/latency-model.js';
import { DEFAULT_MODEL, DEFAULT_SERVER_OPTIONS, startServer } from '../server/server.js';
import { parsePace } from '../session/pace.js';
import { DEFAULT_TIMEOUTS } from '../session/run-session.js';
import { VERSION } from '../version.js';
import { parseFaults } from './faults.js';

/** Exit codes; documented in the README. */
export const EXIT = { ok: 0, internal: 1, usage: 2, nothingCompleted: 3, interrupted: 130 } as const;

const int = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number.');
  return n;
};
const num = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a non-negative number.');
  return n;
};

const program = new Command()
  .name('voxbench')
  .description('Benchmark realtime speech servers over WebSockets the way live applications use them.')
  .version(VERSION)
  .configureOutput({ outputError: (text, write) => write(`voxbench: ${text}`) })
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride((err) => process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage));

program
  .command('run')
  .description('Run a benchmark. With no --target, starts the built-in simulated server and uses the bundled samples.')
  .option('--target <url>', 'server WebSocket URL, e.g. ws://localhost:8000/v1/realtime (default: built-in server)')
  .addOption(new Option('--protocol <name>', 'wire dialect').choices(PROTOCOLS).default('vllm' as const))
  .option('--model <name>', `model named in session.update (required with --target; default with the built-in server: ${DEFAULT_MODEL})`)
  .option('--data <dir>', 'folder of .wav files with same-named .txt transcripts and optional .words.json timings (default: bundled samples)')
  .addOption(new Option('--profile <kind>', 'load profile').choices(PROFILE_KINDS).default('synchronous' as const))
  .option('--concurrency <n>', 'sessions open at once with --profile concurrent', int, 1)
  .option('--max-sessions <n>', 'sessions to run (default: one per sample, at least one per concurrent lane)', int)
  .option('--max-seconds <s>', 'stop after this long; sessions still running end as incomplete', num)
  .option('--chunk-ms <ms>', 'audio per append, ms', num, 100)
  .option('--pace <pace>', 'realtime, Nx (e.g. 2x) or none (as fast as the socket drains)', 'realtime')
  .option('--connect-timeout-ms <ms>', 'limit for the WebSocket to open', num, DEFAULT_TIMEOUTS.connectMs)
  .option('--ready-timeout-ms <ms>', 'limit for the session to be ready after open', num, DEFAULT_TIMEOUTS.readyMs)
  .option('--final-timeout-ms <ms>', 'limit for the final transcript after the final commit', num, DEFAULT_TIMEOUTS.finalMs)
  .addOption(new Option('--api-key <key>', 'sent as Authorization: Bearer; never written to reports').env('VOXBENCH_API_KEY'))
  .option('--output-dir <dir>', 'where report.json is written (default: voxbench-runs/<timestamp>)')
  .option('--json', 'print the JSON report on stdout instead of the summary')
  .option('--definitions', 'print each metric\'s definition under the summary')
  .action(async (opts) => {
    const pace = parsePace(opts.pace);
    if (!pace) throw new UsageError(`--pace takes realtime, Nx (e.g. 2x) or none, got "${opts.pace}"`);
    const profile: LoadProfile = opts.profile === 'concurrent' ? { kind: 'concurrent', concurrency: opts.concurrency } : { kind: 'synchronous' };
    const interrupt = new AbortController();
    const onSigint = (): void => {
      if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
      process.stderr.write('\ninterrupted: finishing the report (Ctrl-C again to quit at once)\n');
      interrupt.abort('interrupted');
    };
    process.on('SIGINT', onSigint);
    const progress = process.stderr.isTTY ? (line: string) => process.stderr.write(`\r\x1b[K${line}`) : undefined;
    let failed = 0;
    const { report, reportPath } = await run({
      ...(opts.target !== undefined ? { target: opts.target } : {}),
      protocol: opts.protocol,
      ...(opts.model !== undefined ? { model: opts.model } : {}),
      ...(opts.data !== undefined ? { data: opts.data } : {}),
      profile,
      ...(opts.maxSessions !== undefined ? { maxSessions: opts.maxSessions } : {}),
      ...(opts.maxSeconds !== undefined ? { maxSeconds: opts.maxSeconds } : {}),
      chunkMs: opts.chunkMs,
      pace,
      timeouts: { connectMs: opts.connectTimeoutMs, readyMs: opts.readyTimeoutMs, finalMs: opts.finalTimeoutMs },
      ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
      outputDir: opts.outputDir ?? `voxbench-runs/${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}`,
      signal: interrupt.signal,
      onSessionEnd: (record, done, expected) => {
        if (record.outcome.status === 'failed') failed++;
        progress?.(`sessions ${done}/${expected} · failed ${failed}`);
      },
    });
    process.off('SIGINT', onSigint);
    progress?.('');
    process.stdout.write(opts.json ? JSON.stringify(report, null, 1) + '\n' : `${renderSummary(report, { definitions: opts.definitions === true })}\nReport: ${reportPath}\n`);
    const { sessions } = report.benchmarks[0]!.summary;
    if (report.stoppedBy === 'interrupted') process.exitCode = EXIT.interrupted;
    else if (sessions.total > 0 && sessions.completed === 0) process.exitCode = EXIT.nothingCompleted;
  });

program
  .command('serve')
  .description('Start the simulated realtime transcription server (vLLM /v1/realtime dialect).')
  .option('--host <host>', 'interface to listen on', DEFAULT_SERVER_OPTIONS.host)
  .option('--port <port>', 'port (0 picks a free one)', int, DEFAULT_SERVER_OPTIONS.port)
  .option('--model <name...>', 'model names session.update may name', [DEFAULT_MODEL])
  .option('--data <dir>', 'samples to recognize and transcribe with their reference words (default: bundled samples)')
  .option('--capacity <n>', 'sessions served at full speed; beyond it delays scale by (open/capacity)^2', int, DEFAULT_LATENCY.capacity)
  .option('--base-delay-ms <ms>', 'processing delay of each emission', num, DEFAULT_LATENCY.baseDelayMs)
  .option('--jitter-ms <ms>', 'uniform jitter added to each delay, +/-', num, DEFAULT_LATENCY.jitterMs)
  .option('--per-word-ms <ms>', 'compute per emitted word', num, DEFAULT_LATENCY.perWordMs)
  .option('--finalize-ms <ms>', 'flush time after the final commit', num, DEFAULT_LATENCY.finalizeMs)
  .option('--seed <n>', 'seed of the jitter generator', int, DEFAULT_LATENCY.seed)
  .option('--empty-deltas', 'send an empty delta for every 80 ms frame without a word, as Voxtral does', false)
  .addOption(new Option('--api-key <key>', 'require Authorization: Bearer <key> on the upgrade').env('VOXBENCH_SERVE_API_KEY'))
  .option('--max-audio-mb <mb>', 'per-connection audio limit', num, DEFAULT_SERVER_OPTIONS.maxAudioMb)
  .option('--fault <fault...>', 'inject a fault in every session: never-finalize, close=CODE (on the first append), upgrade-status=CODE')
  .action(async (opts) => {
    const dataset = await loadFolderDataset(opts.data ?? BUNDLED_SAMPLES_DIR);
    const server = await startServer({
      host: opts.host,
      port: opts.port,
      models: opts.model,
      references: dataset.samples,
      latency: {
        capacity: opts.capacity,
        baseDelayMs: opts.baseDelayMs,
        jitterMs: opts.jitterMs,
        perWordMs: opts.perWordMs,
        finalizeMs: opts.finalizeMs,
        seed: opts.seed,
      },
      emptyDeltas: opts.emptyDeltas,
      maxAudioMb: opts.maxAudioMb,
      ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
      faults: parseFaults(opts.fault ?? []),
    });
    process.stdout.write(`voxbench simulated server listening on ${server.url} (models: ${opts.model.join(', ')}; ${dataset.samples.length} reference samples)\n`);
    const stop = (): void => void server.close().then(() => process.exit(EXIT.ok));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

program
  .command('metrics')
  .description('List every metric with its unit, start and end events, and meaning.')
  .action(() => {
    for (const m of METRICS) {
      const span = m.to ? `${m.from} → ${m.to}` : m.from;
      process.stdout.write(`${m.name} [${m.unit}, per ${m.scope === 'session' ? 'session' : 'turn'}]\n  ${span}\n  ${m.description}\n`);
    }
  });

try {
  await program.parseAsync();
} catch (err) {
  if (err instanceof UsageError || err instanceof DatasetError) {
    process.stderr.write(`voxbench: error: ${err.message}\n`);
    process.exitCode = EXIT.usage;
  } else if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(`voxbench: error: ${(err as Error).message}: the port is taken; choose another with --port (0 picks a free one)\n`);
    process.exitCode = EXIT.usage;
  } else {
    process.stderr.write(`voxbench: internal error: ${(err as Error).message}\n${process.env.VOXBENCH_DEBUG ? (err as Error).stack + '\n' : ''}`);
    process.exitCode = EXIT.internal;
  }
}
