import { readFileSync } from 'node:fs';
import { Command, Option } from '@commander-js/extra-typings';
import { PROTOCOLS } from '../adapters/index.js';
import type { OpenAITurnDetection } from '../adapters/openai.js';
import { UsageError } from '../config.js';
import { PROFILE_KINDS, type LoadProfile } from '../load/profiles.js';
import { renderSummary } from '../report/console.js';
import { run } from '../run.js';
import { DEFAULT_MODEL } from '../server/server.js';
import { parsePace } from '../session/pace.js';
import { DEFAULT_TIMEOUTS } from '../session/run-session.js';
import { EXIT, fraction, int, num } from './parse.js';

export const runCommand = new Command('run')
  .description('Run a benchmark. With no --target, starts the built-in simulated server and uses the bundled samples.')
  .option('--target <url>', 'server WebSocket URL, e.g. ws://localhost:8000/v1/realtime (default: built-in server)')
  .addOption(new Option('--protocol <name>', 'wire dialect').choices(PROTOCOLS).default('vllm' as const))
  .option('--model <name>', `model: named in vLLM's session.update, or the OpenAI transcription model (required with --target; built-in server: ${DEFAULT_MODEL} or gpt-4o-transcribe)`)
  .option('--language <code>', 'transcription language, e.g. en (OpenAI dialects)')
  .option('--prompt <text>', 'transcription prompt (OpenAI dialects)')
  .addOption(new Option('--turn-detection <type>', 'who ends turns (OpenAI dialects): none (the client commits), server_vad or semantic_vad').choices(['none', 'server_vad', 'semantic_vad'] as const).default('none' as const))
  .option('--vad-threshold <x>', 'server_vad threshold, 0 to 1', fraction, 0.5)
  .option('--vad-prefix-padding-ms <ms>', 'server_vad audio kept before speech starts', num, 300)
  .option('--vad-silence-ms <ms>', 'server_vad silence that ends a turn', num, 500)
  .addOption(new Option('--vad-eagerness <level>', 'semantic_vad eagerness').choices(['low', 'medium', 'high', 'auto'] as const).default('auto' as const))
  .option('--data <dir>', 'folder of .wav files with same-named .txt transcripts and optional .words.json timings (default: bundled samples)')
  .addOption(new Option('--profile <kind>', 'load profile').choices(PROFILE_KINDS).default('synchronous' as const))
  .option('--concurrency <n>', 'sessions open at once with --profile concurrent', int, 1)
  .option('--max-sessions <n>', 'sessions to run (default: enough to stream every sample once, at least one per lane)', int)
  .option('--max-seconds <s>', 'stop after this long; sessions still running end as incomplete', num)
  .option('--turns-per-session <n>', 'consecutive utterances per session', int, 1)
  .option('--turn-gap-ms <ms>', 'silence streamed between turns', num, 0)
  .option('--lead-silence-ms <ms>', 'silence before each utterance', num, 0)
  .option('--trail-silence-ms <ms>', 'silence after each utterance', num, 0)
  .option('--idle-ms <ms>', 'stay connected this long after the last turn, as idle sessions do', num, 0)
  .option('--update-at-ms <ms>', 'send a mid-stream session.update this long after the first audio', num)
  .addOption(new Option('--eos-source <source>', 'end of speech for finalization_ms: auto (label, else vad, else audio_end), label, vad or audio_end').choices(['auto', 'label', 'vad', 'audio_end'] as const).default('auto' as const))
  .option('--chunk-ms <ms>', 'audio per append, ms', num, 100)
  .option('--pace <pace>', 'realtime, Nx (e.g. 2x) or none (as fast as the socket drains)', 'realtime')
  .option('--connect-timeout-ms <ms>', 'limit for the WebSocket to open', num, DEFAULT_TIMEOUTS.connectMs)
  .option('--ready-timeout-ms <ms>', 'limit for the session to be ready after open', num, DEFAULT_TIMEOUTS.readyMs)
  .option('--final-timeout-ms <ms>', 'limit for the final transcript after the final commit', num, DEFAULT_TIMEOUTS.finalMs)
  .option('--api-key <key>', 'sent as Authorization: Bearer (prefer an environment variable: command lines are visible to other users)')
  .option('--api-key-env <name>', 'environment variable holding the API key (default: OPENAI_API_KEY for OpenAI dialects, then VOXBENCH_API_KEY)')
  .option('--ca <file>', 'extra trusted CA certificate (PEM) for wss:// targets')
  .option('--insecure', 'accept any TLS certificate (self-signed test servers only)')
  .option('--output-dir <dir>', 'where report.json is written (default: voxbench-runs/<timestamp>)')
  .option('--json', 'print the JSON report on stdout instead of the summary')
  .option('--definitions', "print each metric's definition under the summary")
  .action(async (opts) => {
    const pace = parsePace(opts.pace);
    if (!pace) throw new UsageError(`--pace takes realtime, Nx (e.g. 2x) or none, got "${opts.pace}"`);
    const profile: LoadProfile = opts.profile === 'concurrent' ? { kind: 'concurrent', concurrency: opts.concurrency } : { kind: 'synchronous' };
    const turnDetection: OpenAITurnDetection =
      opts.turnDetection === 'server_vad'
        ? { type: 'server_vad', threshold: opts.vadThreshold, prefixPaddingMs: opts.vadPrefixPaddingMs, silenceDurationMs: opts.vadSilenceMs }
        : opts.turnDetection === 'semantic_vad'
          ? { type: 'semantic_vad', eagerness: opts.vadEagerness }
          : { type: 'none' };
    const apiKey = resolveApiKey(opts.apiKey, opts.apiKeyEnv, opts.protocol !== 'vllm');
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
      ...(opts.language !== undefined ? { language: opts.language } : {}),
      ...(opts.prompt !== undefined ? { prompt: opts.prompt } : {}),
      turnDetection,
      ...(opts.data !== undefined ? { data: opts.data } : {}),
      profile,
      ...(opts.maxSessions !== undefined ? { maxSessions: opts.maxSessions } : {}),
      ...(opts.maxSeconds !== undefined ? { maxSeconds: opts.maxSeconds } : {}),
      turnsPerSession: opts.turnsPerSession,
      padding: { leadMs: opts.leadSilenceMs, trailMs: opts.trailSilenceMs, gapMs: opts.turnGapMs },
      idleMs: opts.idleMs,
      ...(opts.updateAtMs !== undefined ? { updateAtMs: opts.updateAtMs } : {}),
      eos: opts.eosSource,
      chunkMs: opts.chunkMs,
      pace,
      timeouts: { connectMs: opts.connectTimeoutMs, readyMs: opts.readyTimeoutMs, finalMs: opts.finalTimeoutMs },
      ...(apiKey !== undefined ? { apiKey } : {}),
      tls: { ...(opts.ca !== undefined ? { ca: readCa(opts.ca) } : {}), insecure: opts.insecure === true },
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

/** `--api-key`, else the variable named by `--api-key-env`, else OPENAI_API_KEY (OpenAI dialects), else VOXBENCH_API_KEY. */
function resolveApiKey(flag: string | undefined, envName: string | undefined, openai: boolean): string | undefined {
  if (flag !== undefined) return flag;
  if (envName !== undefined) {
    const value = process.env[envName];
    if (!value) throw new UsageError(`--api-key-env ${envName}: that environment variable is not set`);
    return value;
  }
  return (openai ? process.env.OPENAI_API_KEY : undefined) || process.env.VOXBENCH_API_KEY || undefined;
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--ca ${file}: cannot read the certificate (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
