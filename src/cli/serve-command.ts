import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Command, Option } from '@commander-js/extra-typings';
import { UsageError } from '../util/errors.js';
import { BUNDLED_SAMPLES_DIR } from '../data/bundled.js';
import { loadDataset } from '../data/load.js';
import { DEFAULT_GENERATION_RTF, DEFAULT_LATENCY } from '../server/models/latency-model.js';
import { EXIT } from '../run/run-outcome.js';
import { printable } from '../util/printable.js';
import { plural } from '../util/plural.js';
import { DEFAULT_SERVER_OPTIONS, type ConnectionEvent } from '../server/server.js';
import { startServer } from '../simulator/start.js';
import { FAULT_HELP, parseFaults } from './faults.js';
import { fraction, int, milliseconds, num, port, positiveInt, positiveMilliseconds, positiveNum } from './parse.js';
import { DEFAULT_SPEECH_LATENCY, DEFAULT_VOICE } from '../server/models/speech-synth.js';
import { DEFAULT_SPEAKER_ERRORS } from '../server/models/speakers.js';

export const serveCommand = new Command('serve')
  .description(
    'Start the simulated server: realtime transcription (vLLM /v1/realtime and OpenAI Realtime), batch transcription (POST /v1/audio/transcriptions and /translations), speech to speech (vLLM-Omni duplex, OpenAI Realtime conversations) and speech generation (POST /v1/audio/speech and the streaming TTS WebSockets).',
  )
  .option('--host <host>', 'interface to listen on', DEFAULT_SERVER_OPTIONS.host)
  .option('--port <port>', 'port (0 picks a free one)', port, DEFAULT_SERVER_OPTIONS.port)
  .addOption(
    new Option('--model <name...>', 'model names a session or request may name').default(
      DEFAULT_SERVER_OPTIONS.models,
      DEFAULT_SERVER_OPTIONS.models.join(', '),
    ),
  )
  .option('--data <path>', 'dataset to recognize and transcribe with its reference words, of any kind `run --data` takes (default: bundled samples)')
  .option('--capacity <n>', 'sessions served at full speed; beyond it delays scale by (open/capacity)^2', positiveInt, DEFAULT_LATENCY.capacity)
  .option('--base-delay-ms <ms>', 'processing delay of each emission', milliseconds, DEFAULT_LATENCY.baseDelayMs)
  .option('--jitter-ms <ms>', 'uniform jitter added to each delay, +/-', milliseconds, DEFAULT_LATENCY.jitterMs)
  .option('--per-word-ms <ms>', 'compute per emitted word', milliseconds, DEFAULT_LATENCY.perWordMs)
  .option('--finalize-ms <ms>', 'flush time after the final commit', milliseconds, DEFAULT_LATENCY.finalizeMs)
  .option(
    '--batch-speed <x>',
    'batch transcription: process a recording this many times faster than real time, after the base delay',
    positiveNum,
    DEFAULT_LATENCY.batchSpeed,
  )
  .option('--generation-rtf <x>', 'speech to speech: generation time per ms of answer audio', num, DEFAULT_GENERATION_RTF)
  .option('--seed <n>', 'seed of the jitter generator and of the choice of faulted sessions', int, DEFAULT_LATENCY.seed)
  .option('--empty-deltas', 'vLLM: send an empty delta for every 80 ms frame without a word, as Voxtral does', false)
  .option('--stream-during-speech', 'OpenAI: stream transcription deltas while speech arrives, not after the commit', false)
  .addOption(
    new Option(
      '--api-key <key>',
      "require the key on the upgrade, as each dialect's service takes it: its header (Authorization: Bearer <key> by default), or ?jwt= (Speechmatics) or ?token= (ElevenLabs Scribe, AssemblyAI)",
    ).env('VOXBENCH_SERVE_API_KEY'),
  )
  .option('--tls-cert <file>', 'serve wss:// with this certificate (PEM; needs --tls-key)')
  .option('--tls-key <file>', 'private key (PEM) of --tls-cert')
  .option(
    '--max-audio-mb <mb>',
    'vLLM: per-connection audio limit, and the largest file a batch request may upload (413 beyond)',
    num,
    DEFAULT_SERVER_OPTIONS.maxAudioMb,
  )
  .option('--progress-acks', 'vLLM: acknowledge consumed audio with {"type": "progress", "audio_bytes": N}', false)
  .option('--ingest-speed <x>', 'vLLM: take audio in at most this many times real time (default: at once)', num)
  .option('--voice-rate <n>', 'speech generation: characters per second the simulated voice speaks', positiveNum, DEFAULT_VOICE.charsPerSecond)
  .option('--leading-silence-ms <ms>', 'speech generation: silence before the first word', milliseconds, DEFAULT_VOICE.leadingSilenceMs)
  .option('--first-audio-ms <ms>', 'speech generation: request to the first audio chunk', milliseconds, DEFAULT_SPEECH_LATENCY.firstAudioMs)
  .option('--speech-rtf <x>', 'speech generation: generation time per second of audio after the first chunk', num, DEFAULT_SPEECH_LATENCY.rtf)
  .option('--speech-jitter-ms <ms>', 'speech generation: uniform jitter on each chunk, +/-', milliseconds, DEFAULT_SPEECH_LATENCY.jitterMs)
  .option('--speech-chunk-ms <ms>', 'speech generation: audio per chunk', positiveMilliseconds, DEFAULT_SPEECH_LATENCY.chunkMs)
  .option(
    '--legacy-speech-stream',
    'speech generation: answer stream: true with raw bytes whatever stream_format says, as vLLM-Omni did before mid-2026',
    false,
  )
  .option(
    '--fault <fault...>',
    'inject a fault (NAME[:ARG][@POINT], several joined by +); given more than once, each faulted session gets one of them (see below)',
  )
  .option(
    '--speaker-confusion <x>',
    'speaker labels (Deepgram diarize=true, Speechmatics diarization: speaker, AssemblyAI speaker_labels=true, OpenAI diarized_json): share of words given another speaker, 0 to 1, drawn with --seed',
    fraction,
    DEFAULT_SPEAKER_ERRORS.confusion,
  )
  .option(
    '--speaker-boundary-ms <ms>',
    'speaker labels: how late a change of speaker is noticed (words before keep the previous label)',
    milliseconds,
    DEFAULT_SPEAKER_ERRORS.boundaryMs,
  )
  .option(
    '--pending-words [ms]',
    'AssemblyAI: show each word of a running turn pending (word_is_final: false, not yet in transcript) before the next Turn makes it final, its times this many ms off the final ones (default 0)',
    milliseconds,
  )
  .option(
    '--speaker-revision',
    'AssemblyAI speaker_labels=true: end the stream with a SpeakerRevision that gives the words of earlier turns their reference speakers (undoing --speaker-confusion and --speaker-boundary-ms)',
    false,
  )
  .option(
    '--speaker-relabel <x>',
    'speaker labels: share of words that partials (Deepgram interim results, Speechmatics partials) first show with another speaker, the final correcting it, 0 to 1',
    fraction,
    DEFAULT_SPEAKER_ERRORS.relabel,
  )
  .option(
    '--speaker-unlabelled <x>',
    'speaker labels: share of words given no speaker (Deepgram: no speaker field; Speechmatics: UU), 0 to 1',
    fraction,
    DEFAULT_SPEAKER_ERRORS.unlabelled,
  )
  .option(
    '--word-retime-ms <ms>',
    'speaker labels: move each word this many ms in partials, the final giving its own times, as servers re-time words when they settle',
    milliseconds,
    DEFAULT_SPEAKER_ERRORS.retimeMs,
  )
  .option(
    '--refuse-first <n>',
    'refuse the first N connections (WebSocket upgrades, transcription and speech requests) with HTTP 503, as a server still starting does',
    int,
    DEFAULT_SERVER_OPTIONS.refuseFirst,
  )
  .option(
    '--cold-start-ms <ms>',
    'hold the first connection taken, and every one that arrives meanwhile, this long before serving it: a cold start',
    milliseconds,
    DEFAULT_SERVER_OPTIONS.coldStartMs,
  )
  .option('--quiet', 'do not log each connection')
  .option(
    '--pid-file <file>',
    "write the server's process id to FILE once it listens, and remove it when it stops: a script waits for the file, then stops the server with kill",
  )
  .option(
    '--fault-rate <x>',
    'share of sessions that get a fault, 0 to 1, chosen by a generator seeded with --seed',
    fraction,
    DEFAULT_SERVER_OPTIONS.faultRate,
  )
  .addHelpText('after', FAULT_HELP)
  .action(async (opts) => {
    if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
    const dataset = await loadDataset(opts.data ?? BUNDLED_SAMPLES_DIR);
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
        batchSpeed: opts.batchSpeed,
        generationRtf: opts.generationRtf,
        seed: opts.seed,
      },
      emptyDeltas: opts.emptyDeltas,
      voice: { ...DEFAULT_VOICE, charsPerSecond: opts.voiceRate, leadingSilenceMs: opts.leadingSilenceMs },
      speechLatency: {
        firstAudioMs: opts.firstAudioMs,
        rtf: opts.speechRtf,
        jitterMs: opts.speechJitterMs,
        chunkMs: opts.speechChunkMs,
        capacity: opts.capacity,
        seed: opts.seed,
      },
      legacySpeechStream: opts.legacySpeechStream,
      streamDuringSpeech: opts.streamDuringSpeech,
      maxAudioMb: opts.maxAudioMb,
      progressAcks: opts.progressAcks,
      ...(opts.ingestSpeed !== undefined ? { ingestSpeed: opts.ingestSpeed } : {}),
      ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
      ...(opts.tlsCert !== undefined ? { tls: { cert: readPem(opts.tlsCert, '--tls-cert'), key: readPem(opts.tlsKey!, '--tls-key') } } : {}),
      speakers: {
        confusion: opts.speakerConfusion,
        boundaryMs: opts.speakerBoundaryMs,
        relabel: opts.speakerRelabel,
        unlabelled: opts.speakerUnlabelled,
        retimeMs: opts.wordRetimeMs,
      },
      ...(opts.pendingWords !== undefined ? { pendingWordsMs: opts.pendingWords === true ? 0 : opts.pendingWords } : {}),
      speakerRevision: opts.speakerRevision,
      faults: parseFaults(opts.fault ?? []),
      faultRate: opts.faultRate,
      refuseFirst: opts.refuseFirst,
      coldStartMs: opts.coldStartMs,
      ...(opts.quiet ? {} : { onConnection: (event: ConnectionEvent) => say(connectionLine(event)) }),
    });
    const faults = opts.fault ? `; faults ${opts.fault.join(', ')} in ${Number((opts.faultRate * 100).toFixed(2))}% of sessions` : '';
    say(
      `voxbench simulated server listening on ${server.url} and ${server.origin}/v1/audio/transcriptions (models: ${opts.model.join(', ')}; ${plural(dataset.samples.length, 'reference sample')}${faults})`,
    );
    // Written last: a script that waits for the file finds the server listening.
    if (opts.pidFile !== undefined) writePidFile(opts.pidFile);
    const stop = (signal: NodeJS.Signals): void =>
      void server.close().then(() => {
        if (opts.pidFile !== undefined) rmSync(opts.pidFile, { force: true });
        say(`voxbench simulated server stopped (${signal})`);
        process.exit(EXIT.ok);
      });
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    process.on('SIGHUP', stop);
  });

/** One line on stdout; a client's path, or a model name, may hold escapes that must not reach the terminal. */
function say(text: string): void {
  process.stdout.write(`${printable(text)}\n`);
}

/** A connection in one line: who, and which dialect it speaks or why it was refused. */
function connectionLine({ from, outcome }: ConnectionEvent): string {
  return 'dialect' in outcome ? `connection from ${from}: ${outcome.dialect}` : `connection from ${from} refused: ${outcome.refused} ${outcome.reason}`;
}

/**
 * The process to signal is this one, not the `npx` or shell that started it: killing
 * `npx` leaves its children running, holding the port.
 */
function writePidFile(file: string): void {
  try {
    writeFileSync(file, `${process.pid}\n`);
  } catch (err) {
    throw new UsageError(`--pid-file ${file}: cannot write the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

function readPem(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
