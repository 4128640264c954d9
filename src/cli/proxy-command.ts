import { readFileSync } from 'node:fs';
import { Command, Option } from '@commander-js/extra-typings';
import { UsageError } from '../util/errors.js';
import { lockFolder } from '../util/folder-lock.js';
import { METERED_PROTOCOLS, OWN_PATHS } from '../dialects/index.js';
import { plural } from '../util/plural.js';
import { printable } from '../util/printable.js';
import { renderSummary } from '../report/console.js';
import { DEFAULT_OUTPUTS, OUTPUT_FORMATS } from '../report/output-formats.js';
import { redactUrl } from '../report/redact.js';
import { EXIT } from '../run/run-outcome.js';
import type { SessionRecord } from '../timeline/types.js';
import { checkWritableDir } from './output-dir.js';
import { listenAddress, positiveMilliseconds } from './parse.js';
import { outputList } from './output-list.js';
import { helpText } from './help.js';

/** The dialects' own paths as the help lists them, a varying segment and what comes before it elided (`.../stream-input`). */
const OWN_PATH_LIST = OWN_PATHS.map(({ path }) => path.replace(/^.*\}/, '...')).join(', ');

export const proxyCommand = new Command('proxy')
  .summary('Meter live speech WebSocket traffic passively: a reverse proxy with Prometheus /metrics and observed reports.')
  .description(
    'A reverse proxy for speech WebSockets that meters live traffic passively: applications connect to it instead of the server and notice nothing. ' +
      "It forwards everything unchanged (path, query, headers, subprotocols, every frame byte for byte, pings, close codes; a refused upgrade keeps its status) and measures every connection with the benchmark's dialect codecs and metric catalog, from a copy of the bytes.",
  )
  .requiredOption(
    '--upstream <url>',
    "the server: ws://host:port (or wss://, with a path prefix if any); each client's path and query are appended as they came",
  )
  .addOption(
    new Option('--listen <[host:]port>', 'where clients connect').argParser(listenAddress).default({ host: '127.0.0.1', port: 9000 }, '127.0.0.1:9000'),
  )
  .addOption(
    new Option(
      '--protocol <name>',
      `dialect to meter with (default: inferred per connection: a dialect's own path is that dialect (${OWN_PATH_LIST}); else ?intent= or ?model= or an OpenAI-Beta header is OpenAI Realtime, its client's first session.update saying transcription (openai, openai-beta) or a conversation, whose first input says speech to speech (audio: openai-realtime) or speech generation (text: openai-realtime-tts, -beta); else vllm)`,
    ).choices(METERED_PROTOCOLS),
  )
  .option('--metrics-port <[host:]port>', 'serve Prometheus /metrics and /healthz here', listenAddress)
  .option(
    '--output-dir <dir>',
    'log each observed session there as it ends (sessions.jsonl) and, when the proxy stops, build a voxbench report from the log (report.json; report render, compare and the HTML read it)',
  )
  .option('--outputs <list>', `formats written to --output-dir, from: ${OUTPUT_FORMATS.join(', ')}`, outputList, [...DEFAULT_OUTPUTS])
  .option('--connect-timeout-ms <ms>', 'how long the upstream may take to accept an upgrade (then the client gets 504)', positiveMilliseconds, 10_000)
  .option('--ca <file>', 'wss:// upstream: extra trusted CA certificates (PEM)')
  .option('--insecure', 'wss:// upstream: do not verify its certificate')
  .option('--quiet', 'do not log each session')
  .addHelpText(
    'after',
    helpText(
      '',
      'Every byte passes unchanged; Sec-WebSocket-Extensions is not forwarded, so no ' +
        'compression is negotiated and every frame stays readable. Latencies are as the proxy ' +
        'sees them: client and server frames are stamped as they reach the proxy. An input is ' +
        'what the client ended (its end-of-input control; for speech generation, the send that ' +
        'forces synthesis), its end of speech the end of its audio; under server turn ' +
        "detection, each utterance the server's VAD reported. Speech audio is sized at the " +
        'PCM rate the client asked for: in its URL (sample_rate, output_format=pcm_<rate>), ' +
        "else in its messages (Cartesia's output_format, vLLM-Omni's session.config " +
        "sample_rate, OpenAI Realtime's output format), else 24 kHz. Headers (authorization " +
        'included) are forwarded, never logged.',
    ),
  )
  .action(async (opts) => {
    if (!/^wss?:\/\/[^?#]+$/.test(opts.upstream))
      throw new UsageError(
        `--upstream ${redactUrl(opts.upstream)}: expected a ws:// or wss:// URL without a query, e.g. ws://model:8000 (clients bring their own path and query)`,
      );
    if (opts.outputDir !== undefined) await checkWritableDir(opts.outputDir, '--output-dir');
    // Held until the report is written, so that no run or render writes there meanwhile.
    const release = opts.outputDir !== undefined ? await lockFolder(opts.outputDir) : async () => {};
    // Loaded here: the proxy's metrics library would cost every command's start a tenth of a CPU-second.
    const { startProxy } = await import('../proxy/proxy.js');
    const proxy = await startProxy({
      listen: opts.listen,
      upstream: opts.upstream,
      ...(opts.protocol ? { protocol: opts.protocol } : {}),
      ...(opts.metricsPort ? { metrics: opts.metricsPort } : {}),
      ...(opts.outputDir !== undefined ? { outputDir: opts.outputDir, outputs: opts.outputs } : {}),
      connectTimeoutMs: opts.connectTimeoutMs,
      tls: { ...(opts.ca !== undefined ? { ca: readCa(opts.ca) } : {}), ...(opts.insecure ? { rejectUnauthorized: false } : {}) },
      ...(opts.quiet ? {} : { onSession: (record: SessionRecord, protocol: string, model: string) => say(sessionLine(record, protocol, model)) }),
    });
    say(
      `voxbench proxy listening on ${proxy.url}, forwarding to ${redactUrl(opts.upstream)}${proxy.metrics ? `; metrics on ${proxy.metrics.url}/metrics` : ''}`,
    );
    const stop = (signal: NodeJS.Signals): void =>
      void proxy
        .close()
        .finally(release)
        .then(({ report, written }) => {
          if (report) process.stdout.write(`${renderSummary(report)}\nWrote: ${written.join(', ')}\n`);
          say(`voxbench proxy stopped (${signal})`);
          process.exit(EXIT.ok);
        })
        .catch((err: Error) => {
          process.stderr.write(`voxbench: error: ${printable(err.message)}\n`);
          process.exit(EXIT.internal);
        });
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

/** One line per ended session: its index, dialect, model, outcome and close; no header, query or text. */
function sessionLine({ index, outcome, timeline }: SessionRecord, protocol: string, model: string): string {
  const close =
    timeline.transport.kind === 'websocket' && timeline.transport.close
      ? `, closed ${timeline.transport.close.code} by the ${timeline.transport.close.by}`
      : '';
  const how =
    outcome.status === 'failed' ? `failed: ${outcome.failure.class}${outcome.failure.httpStatus ? ` ${outcome.failure.httpStatus}` : ''}` : outcome.status;
  return `session ${index} (${protocol}${model ? `, ${model}` : ''}): ${how}, ${plural(timeline.inputs.length, 'input')}${close}`;
}

function say(text: string): void {
  process.stdout.write(`${printable(text)}\n`);
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--ca ${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
