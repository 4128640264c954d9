import { readFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { basename, resolve } from 'node:path';
import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { DEFAULT_PROTOCOL, specOf, DIALECTS, FALLBACK_KEY_ENV, KEY_ENVS, PROTOCOLS, takesServerTurns, type Protocol } from '../dialects/index.js';
import type { TranscriptionOptions } from '../dialects/transcriptions/client.js';
import type { OpenAITurnDetection } from '../dialects/realtime-common.js';
import { STREAM_FORMATS } from '../dialects/speech-http.js';
import { findApiKey, keyVariables, resolveApiKey } from '../config/api-key.js';
import { WAIT_AUDIO } from '../config/options.js';
import { UsageError } from '../util/errors.js';
import { PROFILE_KINDS } from '../load/profiles.js';
import { UNREACHABLE_AFTER } from '../load/error-stop.js';
import { NORMALIZER_NAMES } from '../metrics/normalizers/index.js';
import type { RunOptions, WaitAudio } from '../config/options.js';
import { pageHint } from './page-hint.js';
import { DEFAULT_STATISTICS, parseStatistics } from '../report/statistics.js';
import { DEFAULT_OUTPUTS, OUTPUT_FORMATS } from '../report/output-formats.js';
import { parseMetaEntry } from '../report/meta-entry.js';
import type { Meta } from '../report/schema.js';
import { EXIT, exitCodeOf, outcomeLine } from '../run/run-outcome.js';
import { printable } from '../util/printable.js';
import { VLLM } from '../dialects/vllm/spec.js';
import { OPENAI_REALTIME } from '../dialects/openai-realtime/spec.js';
import { VLLM_OMNI_DUPLEX } from '../dialects/vllm-omni-duplex/spec.js';
import { parsePace } from '../session/pace.js';
import { DEFAULT_TIMEOUTS } from '../session/runner.js';
import { addColdGapFlag, coldGapOf } from './cold-gap-flag.js';
import { addReplayFlags, replayOptionsOf } from './replay-flags.js';
import { addDiarizationFlags, diarizationOptionsFromFlags } from './diarization-flags.js';
import { addSessionCapFlags, sessionCapsFromFlags, type SessionCapFlags } from './session-cap-flags.js';
import { addScrapeFlags, scrapeOptionsFromFlags, type ScrapeFlags } from './scrape-flags.js';
import { addDatasetFlags, datasetOptionsFromFlags, type DatasetFlags } from './dataset-flags.js';
import { profileOfFlags, type ProfileFlag } from './load-flags.js';
import { checkFreshDir, checkWritableDir, defaultOutputDir } from './output-dir.js';
import { applyConfigFile } from './config-file.js';
import {
  durationSeconds,
  fraction,
  int,
  intList,
  listenAddress,
  milliseconds,
  num,
  positiveInt,
  positiveNum,
  seconds,
  sessionsOrSeconds,
  shardOf,
  stageList,
  workerCount,
} from './parse.js';
import { outputList } from './output-list.js';
import type { LoadStage } from '../load/stages.js';
import { groupOptions } from './help.js';
import { RUN_HELP_GROUPS } from './run-help-groups.js';

export const runCommand = new Command('run')
  .description('Run a benchmark. With no --target, starts the built-in simulated server and uses the bundled samples.')
  .option(
    '--target <url>',
    'server URL: WebSocket, e.g. ws://localhost:8000/v1/realtime, or for HTTP dialects the origin, e.g. http://localhost:8000, whose requests share a keep-alive pool and go once more on a new connection when a pooled one died before answering (default: built-in server)',
  )
  .addOption(new Option('--protocol <name>', 'wire dialect').choices(PROTOCOLS).default(DEFAULT_PROTOCOL))
  .option(
    '--model <name>',
    `model: named in vLLM's session.update, the OpenAI transcription model, the form's model, the speech-to-speech or the speech generation model (required with --target; built-in server: ${VLLM.defaultModel}, gpt-4o-transcribe, openai/whisper-large-v3 for vllm-transcriptions, ${VLLM_OMNI_DUPLEX.defaultModel} or ${OPENAI_REALTIME.defaultModel})`,
  )
  .option(
    '--language <code>',
    "the speech's language, e.g. en, sent where the dialect takes one (Speechmatics: default en); batch transcription: else each sample's language label",
  )
  .option('--prompt <text>', 'transcription prompt (OpenAI and batch dialects)')
  .option('--max-delay-ms <ms>', "Speechmatics: the longest a word may wait for its final (max_delay, 700 to 4000; default: the server's)", milliseconds)
  .option('--stream', 'batch dialects: ask for a server-sent event stream (stream=true), so ttft_ms times the first text')
  .option('--temperature <x>', "batch dialects: sampling temperature (default: the server's)", num)
  .option('--translate', 'batch dialects: POST /v1/audio/translations (into English) instead of /v1/audio/transcriptions')
  .addOption(
    new Option('--upload-format <format>', "batch dialects: re-encode each recording at 16 kHz for upload; unset, the dataset's own file is sent").choices([
      'wav',
      'flac',
    ] as const),
  )
  .option(
    '--voice <name>',
    "speech generation: the voice (vLLM-Omni voice, ElevenLabs voice id, OpenAI voice; default: the server's own, openai-speech alloy, openai-realtime-tts marin, elevenlabs 21m00Tcm4TlvDq8ikWAM; over HTTP a sample may name its own)",
  )
  .option(
    '--text-rate <tokens/s>',
    'speech generation over WebSocket: stream each prompt like an LLM, this many tokens (words) per second, so first token to speech (ftts_ms) is measured (default: the whole text at once)',
    positiveNum,
  )
  .option('--text-first-token-ms <ms>', "with --text-rate: the first token's delay after the input starts", milliseconds, 0)
  .option(
    '--playback-buffer-ms <ms>',
    'speech generation: audio the simulated player buffers before it starts (playback_start_ms, stall_count, stall_ms)',
    milliseconds,
    200,
  )
  .addOption(
    new Option(
      '--turn-detection <type>',
      `who ends turns: none (the client commits), server_vad or semantic_vad (the server's VAD: ${PROTOCOLS.filter(takesServerTurns).join(', ')})`,
    )
      .choices(['none', 'server_vad', 'semantic_vad'] as const)
      .default('none' as const),
  )
  .option('--vad-threshold <x>', 'server_vad threshold, 0 to 1', fraction, 0.5)
  .option('--vad-prefix-padding-ms <ms>', 'server_vad audio kept before speech starts', milliseconds, 300)
  .option('--vad-silence-ms <ms>', 'server_vad silence that ends a turn (Deepgram: endpointing)', milliseconds, 500)
  .addOption(new Option('--vad-eagerness <level>', 'semantic_vad eagerness').choices(['low', 'medium', 'high', 'auto'] as const).default('auto' as const))
  .option(
    '--instructions <text>',
    "speech to speech: the agent's instructions (system prompt), sent in session.update; speech generation: how to speak (vLLM-Omni and OpenAI instructions)",
  )
  .option(
    '--response-format <format>',
    'batch transcription: the answer, json (default), verbose_json or text, or diarized_json (speakers; gpt-4o-transcribe-diarize), the last and json also streamed; speech generation: the audio format, pcm (default) or wav to stream, with --stream-format none any the server offers (mp3, flac, opus, ...)',
  )
  .addOption(
    new Option('--stream-format <format>', 'speech generation over HTTP: sse (server-sent events), audio (raw stream), none (one body, task batch_tts)')
      .choices(STREAM_FORMATS)
      .default('audio' as const),
  )
  .option('--output-rate <hz>', 'speech generation: sample rate of headerless PCM audio (a WAV header names its own)', int, 24_000)
  .option(
    '--quality-sessions <n>',
    'speech generation: sessions per benchmark whose audio is checked after it (levels, format, and the round trip through --asr-target); 0: none',
    int,
    20,
  )
  .option(
    '--asr-target <url>',
    'speech generation: transcription server for the intelligibility round trip, e.g. ws://localhost:8001/v1/realtime (default: a built-in server)',
  )
  .addOption(new Option('--asr-protocol <name>', 'its dialect').choices(PROTOCOLS).default(DEFAULT_PROTOCOL))
  .option('--asr-model <name>', 'its model (required with --asr-target)')
  .option(
    '--asr-api-key-env <name>',
    'environment variable holding its API key (default: OPENAI_API_KEY for OpenAI dialects, ELEVENLABS_API_KEY for ElevenLabs ones, then VOXBENCH_API_KEY)',
  )
  .option('--keep-audio-mb <mb>', 'speech generation: received audio kept per checked session', num, 16)
  .option(
    '--data <path>',
    'dataset: a folder of audio files with .txt transcripts, a .jsonl manifest, Parquet shards, a save_to_disk folder, or a Hugging Face Hub dataset hf:<owner>/<name> (default: bundled samples); select with the dataset flags below',
  )
  .option(
    '--cache-dir <dir>',
    "keep prepared audio (decoded, resampled to the dialect's rate) here, and Hub downloads in its hub folder, so a later run over the same files starts at once (default: $XDG_CACHE_HOME/voxbench/audio or ~/.cache/voxbench/audio, and hub beside it; voxbench cache clear empties them)",
  )
  .option('--no-cache', 'prepare every file again and keep nothing (a Hub dataset is read over the network each time)')
  .addOption(
    new Option(
      '--profile <kind>',
      'load profile: synchronous, concurrent, constant or poisson arrivals, stages or rate-stages ramps, a sweep of concurrency levels, or a capacity search (default: from the load flags given: --concurrency N concurrent, --concurrency 1,2,4 sweep, --rate constant, --rate with --seed poisson, --stages, --rate-stages; else synchronous)',
    ).choices([...PROFILE_KINDS, 'sweep', 'capacity'] as const),
  )
  .option('--concurrency <n>', 'sessions open at once (concurrent); the levels of a sweep, e.g. 1,2,4,8; the first level of a capacity search', intList, [1])
  .option('--rate <r>', 'session arrivals per second (constant, poisson; the first level of a capacity search by rate)', positiveNum, 1)
  .option(
    '--stages <stages>',
    'sessions open at once ramped linearly from 0 through stages, e.g. 30s:8,60s:32,30s:0 (as k6 ramping-vus); each benchmark lasts the stages',
    stageList,
  )
  .option(
    '--rate-stages <stages>',
    'arrivals per second ramped linearly from 0 through stages, e.g. 30s:2,60s:10,30s:0 (as k6 ramping-arrival-rate; Poisson with --seed)',
    stageList,
  )
  .option('--max-open <n>', 'open loop: cap on open sessions; a session that finds it reached waits, and the hit is counted', int)
  .option('--seed <n>', 'seed of the Poisson arrival process, and of which samples a replay fills its inputs with', int, 1)
  .option(
    '--ramp-up-s <s>',
    'spread lane starts, connects included (closed loop; default: every lane connects first, then streams at its phase of one chunk period, so deadlines never coincide) or ramp the arrival rate up (open loop) over this long',
    durationSeconds,
    0,
  )
  .option('--warmup <n|Ns>', 'leave the first N sessions, or those starting in the first N seconds, out of the figures', sessionsOrSeconds)
  .option('--cooldown <n|Ns>', 'leave the last N sessions to end, or those ending in the last N seconds, out of the figures', sessionsOrSeconds)
  .option('--max-error-rate <x>', 'stop a benchmark once its error rate exceeds this (0 to 1; exit code 3)', fraction)
  .option('--error-min-sessions <n>', 'finished sessions needed before --max-error-rate applies', int, 10)
  .option(
    '--normalizer <name>',
    `how transcripts are normalized for WER and CER: auto (whisper-english for English or unlabelled samples, whisper-basic for other languages) or one of: ${NORMALIZER_NAMES}`,
    'auto',
  )
  .option('--slo <expr...>', 'service-level objective, e.g. "p95(finalization_ms)<800" "error_rate<0.01"; exit code 4 when one fails')
  .addOption(new Option('--capacity-by <what>', 'what a capacity search varies').choices(['concurrency', 'rate'] as const).default('concurrency' as const))
  .option('--capacity-max <n>', 'highest level a capacity search tries (default 256 sessions or 1000 arrivals/s)', num)
  .option('--capacity-tolerance <x>', 'capacity search by rate: stop when the bracket is this narrow, relatively', num, 0.1)
  .option('--workers <n|auto>', 'spread sessions over this many worker threads when one core is not enough; auto: one per core', workerCount, 1)
  .option(
    '--shard <I/N>',
    "run shard I (from 0) of N: a stable share of every level's sessions (session i of an open-loop schedule at its planned time when i mod N = I; closed loop, the lanes l mod N = I); report merge joins the shards' reports",
    shardOf,
  )
  .option('--shards <n>', "with JOB_COMPLETION_INDEX set (a Kubernetes Indexed Job's pod), run shard $JOB_COMPLETION_INDEX of N", positiveInt)
  .addOption(new Option('--run-id <id>', 'the run this process belongs to, the same in every shard (default: a fresh UUID)').env('VOXBENCH_RUN_ID'))
  .option(
    '--max-sessions <n>',
    'sessions per benchmark (default: enough to stream every sample once, at least one per lane, or ten arrivals; in a capacity search at least enough for its SLO percentile, e.g. 20 for a p95)',
    int,
  )
  .option(
    '--duration <time>',
    'run each benchmark this long, e.g. 60s or 5m: closed loop, lanes start sessions until then; open loop, arrivals for that long; sessions started finish',
    seconds,
  )
  .option('--max-seconds <s>', 'stop each benchmark after this long; sessions still running end as incomplete', durationSeconds)
  .option('--turns-per-session <n>', 'consecutive utterances per session', int, 1)
  .option('--turn-gap-ms <ms>', 'silence streamed between turns', milliseconds, 0)
  .option('--lead-silence-ms <ms>', 'silence before each utterance', milliseconds, 0)
  .option('--trail-silence-ms <ms>', 'silence after each utterance', milliseconds, 0)
  .option('--idle-ms <ms>', 'stay connected this long after the last turn, as idle sessions do', milliseconds, 0)
  .option('--update-at-ms <ms>', 'send a mid-stream session.update this far into the audio (ms of audio, whatever the pace)', milliseconds)
  .addOption(
    new Option('--eos-source <source>', 'end of speech for finalization_ms: auto (label, else vad, else audio_end), label, vad or audio_end')
      .choices(['auto', 'label', 'vad', 'audio_end'] as const)
      .default('auto' as const),
  )
  .option(
    '--chunk-ms <ms>',
    'audio per message a streaming client sends, ms (refused for HTTP dialects and speech generation, which send none)',
    milliseconds,
    100,
  )
  .option(
    '--pace <pace>',
    'realtime, Nx (e.g. 2x, 0.5x) or none (as fast as the server takes audio: at most 8 frames wait on the socket and, with a server that acknowledges audio, at most --ack-window-ms of it goes unacknowledged); refused where nothing is streamed: HTTP dialects, speech generation without --text-rate',
    'realtime',
  )
  .option(
    '--wait-for-answer',
    'server turn detection: wait for each utterance to be answered before streaming the next, streaming silence meanwhile (see --wait-audio; client commits always wait, sending nothing, as push-to-talk does)',
    false,
  )
  .option(
    '--barge-in-at-ms <ms>',
    'speech to speech, server VAD: start each later utterance this long after the previous answer begins to sound, so the user speaks over it',
    milliseconds,
  )
  .option(
    '--ack-window-ms <ms>',
    'unpaced: most audio sent but not yet acknowledged, with servers that send progress events (0: ignore them)',
    milliseconds,
    1000,
  )
  .option('--mask-frames', 'mask client frames with random keys, as browsers must (default: an all-zero key, which costs no copy or XOR per frame)')
  .option('--connect-timeout-ms <ms>', 'limit for the WebSocket to open', milliseconds, DEFAULT_TIMEOUTS.connectMs)
  .option('--ready-timeout-ms <ms>', 'limit for the session to be ready after open', milliseconds, DEFAULT_TIMEOUTS.readyMs)
  .option(
    '--final-timeout-ms <ms>',
    'limit for the final transcript (speech to speech: the answer) after the final commit',
    milliseconds,
    DEFAULT_TIMEOUTS.finalMs,
  )
  .option(
    '--api-key <key>',
    'sent as Authorization: Bearer (ElevenLabs: xi-api-key; Deepgram: Authorization: Token) (prefer an environment variable: command lines are visible to other users)',
  )
  .option(
    '--api-key-env <name>',
    `environment variable holding the API key (default: the dialect's own, ${KEY_ENVS.join(', ')}, as the dialect reference lists, then ${FALLBACK_KEY_ENV})`,
  )
  .option('--ca <file>', 'extra trusted CA certificate (PEM) for wss:// targets')
  .option('--insecure', 'accept any TLS certificate (self-signed test servers only)')
  .option(
    '--output-dir <dir>',
    'where report.json, the session log and the other outputs are written (default: voxbench-runs/<timestamp>-<random>; one run at a time)',
  )
  .option(
    '--outputs <list>',
    `formats to write besides report.json, from: ${OUTPUT_FORMATS.join(', ')} (the list replaces the default: json leaves the page out)`,
    outputList,
    [...DEFAULT_OUTPUTS],
  )
  .option('--resume <dir>', 'continue the run logged in this folder (same flags): finished sessions are kept, not repeated')
  .option(
    '--meta <entry...>',
    'an entry for the reproducibility record: section.key=value (sections: deployment, input, client, session, results; no section means deployment), e.g. deployment.gpu=H100 client.location=eu-west',
  )
  .option('--meta-file <file>', 'entries for the reproducibility record from a JSON file: {"deployment": {"gpu": "H100"}, ...}')
  .option('--cost-per-hour <price>', 'deployment price per replica-hour, for cost per audio hour', num)
  .option('--replicas <n>', 'replicas serving the run, for cost per audio hour', int, 1)
  .option(
    '--metrics-port <[host:]port>',
    'serve the run live in Prometheus format on /metrics (and /healthz): sessions open and ended by outcome and failure class, latency and send-lag histograms',
    listenAddress,
  )
  .option(
    '--json',
    'print a compact JSON summary on stdout instead of the console summary: levels, headline statistics, SLO verdicts, capacity (report.json holds everything)',
  )
  .option('--quiet', 'no run header or progress on stderr (errors and why the exit code is 3 or 4 still are)')
  .option('--definitions', "print each metric's definition under the summary")
  .action(async (opts) => {
    // The file's values land in `opts` itself (commander's option values), beneath the flags given.
    const { config } = runCommand.opts() as { config?: string };
    const configFile = config === undefined ? undefined : await applyConfigFile(runCommand, config);
    const { percentiles } = runCommand.opts() as { percentiles?: string };
    const statistics = percentiles === undefined ? undefined : parseStatistics(percentiles);
    const pace = parsePace(opts.pace);
    if (!pace) throw new UsageError(`--pace takes realtime, Nx (e.g. 2x) or none, got "${opts.pace}"`);
    const givenFlag = (flag: string): boolean => ['cli', 'config'].includes(runCommand.getOptionValueSource(flag) ?? '');
    const given = new Set((['concurrency', 'rate', 'maxOpen', 'seed', 'stages', 'rateStages'] as const).filter(givenFlag));
    const replay = replayOptionsOf(runCommand, opts.profile, given);
    const load =
      replay ?? loadOptions({ ...opts, seedGiven: given.has('seed'), profile: profileOfFlags(opts.profile, given, opts.concurrency.length, opts.capacityBy) });
    const turnDetection: OpenAITurnDetection =
      opts.turnDetection === 'server_vad'
        ? { type: 'server_vad', threshold: opts.vadThreshold, prefixPaddingMs: opts.vadPrefixPaddingMs, silenceDurationMs: opts.vadSilenceMs }
        : opts.turnDetection === 'semantic_vad'
          ? { type: 'semantic_vad', eagerness: opts.vadEagerness }
          : { type: 'none' };
    const key = findApiKey({ apiKey: opts.apiKey, apiKeyEnv: opts.apiKeyEnv, protocol: opts.protocol });
    if (!key && opts.target !== undefined && hostedWithoutKey(opts.protocol, opts.target))
      process.stderr.write(
        `warning: no API key: ${printable(new URL(opts.target).host)} is a hosted service, which refuses sessions without one; set ${keyVariables(opts.protocol).join(' or ')}, or name another variable with --api-key-env\n`,
      );
    // The run's own key never goes to another server: the transcription server gets its own, and only with --asr-target.
    if (opts.asrApiKeyEnv !== undefined && !process.env[opts.asrApiKeyEnv])
      throw new UsageError(`--asr-api-key-env ${opts.asrApiKeyEnv}: that environment variable is not set`);
    const asrApiKey = opts.asrTarget === undefined ? undefined : resolveApiKey({ apiKeyEnv: opts.asrApiKeyEnv, protocol: opts.asrProtocol });
    // Without --output-dir, a resumed run writes into the folder it resumes.
    const outputDir = opts.resume === undefined || opts.outputDir !== undefined ? (opts.outputDir ?? defaultOutputDir()) : undefined;
    await checkWritableDir(outputDir ?? opts.resume!, '--output-dir');
    // A run never replaces another unasked: only the folder it resumes, or one --overwrite gives up.
    const { overwrite } = runCommand.opts() as { overwrite?: boolean };
    const resumesInPlace = opts.resume !== undefined && (outputDir === undefined || resolve(outputDir) === resolve(opts.resume));
    if (overwrite && resumesInPlace)
      throw new UsageError('--overwrite replaces the run in --output-dir; --resume continues its run, keeping it: give one of them');
    if (!resumesInPlace && !overwrite) await checkFreshDir(outputDir!);
    const interrupt = new AbortController();
    let stoppedBy: NodeJS.Signals | undefined;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (interrupt.signal.aborted) process.exit(signalExit(signal));
      stoppedBy = signal;
      process.stderr.write(`\ninterrupted (${signal}): finishing the report (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to quit at once)\n`);
      interrupt.abort('interrupted');
    };
    // A closed terminal (SIGHUP) or a stop request (SIGTERM) finishes the report as Ctrl-C does.
    for (const signal of INTERRUPTS) process.on(signal, onSignal);
    // Loaded here, not with the flags: a run refused before it starts (a bad flag, a used folder) need not load the
    // run, its progress line or the summaries (about 200 modules, a third of a CPU-second).
    const [{ run }, { renderSummary }, { jsonSummary }, progressModule] = await Promise.all([
      import('../run/run.js'),
      import('../report/console.js'),
      import('../report/json-summary.js'),
      opts.quiet ? undefined : import('./progress.js'),
    ]);
    const progress = progressModule && new progressModule.Progress(process.stderr);
    // Loaded only with --metrics-port: its metrics library would cost every run's start a tenth of a CPU-second.
    const live = opts.metricsPort ? await (await import('../live/run-metrics.js')).serveRunMetrics(opts.metricsPort) : undefined;
    if (live && !opts.quiet) process.stderr.write(`metrics on ${live.endpoint.url}/metrics\n`);
    const { report, written, reportPath } = await run({
      ...(opts.target !== undefined ? { target: opts.target } : {}),
      protocol: opts.protocol,
      ...(opts.model !== undefined ? { model: opts.model } : {}),
      ...(opts.language !== undefined ? { language: opts.language } : {}),
      ...(opts.prompt !== undefined ? { prompt: opts.prompt } : {}),
      ...(opts.maxDelayMs !== undefined ? { maxDelayMs: opts.maxDelayMs } : {}),
      transcription: {
        // One flag, two meanings: a transcript's format for batch transcription, else an audio format.
        ...(opts.responseFormat !== undefined && DIALECTS[opts.protocol] === 'batch_stt'
          ? { responseFormat: opts.responseFormat as TranscriptionOptions['responseFormat'] }
          : {}),
        stream: opts.stream === true,
        translate: opts.translate === true,
        ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
        ...(opts.uploadFormat !== undefined ? { uploadFormat: opts.uploadFormat } : {}),
      },
      ...(opts.instructions !== undefined ? { instructions: opts.instructions } : {}),
      ...(opts.textRate !== undefined ? { textDelivery: { kind: 'stream' as const, tokensPerS: opts.textRate, firstTokenMs: opts.textFirstTokenMs } } : {}),
      playbackBufferMs: opts.playbackBufferMs,
      turnDetection,
      speech: {
        ...(opts.voice !== undefined ? { voice: opts.voice } : {}),
        ...(opts.instructions !== undefined ? { instructions: opts.instructions } : {}),
        ...(opts.responseFormat !== undefined && DIALECTS[opts.protocol] !== 'batch_stt' ? { responseFormat: opts.responseFormat } : {}),
        streamFormat: opts.streamFormat,
        outputRate: opts.outputRate,
      },
      quality: {
        sessions: opts.qualitySessions,
        keepAudioMb: opts.keepAudioMb,
        asrProtocol: opts.asrProtocol,
        ...(opts.asrModel !== undefined ? { asrModel: opts.asrModel } : {}),
        ...(opts.asrTarget !== undefined ? { asrTarget: opts.asrTarget } : {}),
        ...(asrApiKey !== undefined ? { asrApiKey } : {}),
      },
      ...(opts.data !== undefined ? { data: opts.data } : {}),
      dataset: datasetOptionsFromFlags(runCommand.opts() as DatasetFlags),
      ...(!opts.cache ? { audioCache: false as const } : opts.cacheDir !== undefined ? { audioCache: opts.cacheDir } : {}),
      ...load,
      ...(opts.maxSessions !== undefined ? { maxSessions: opts.maxSessions } : {}),
      ...(opts.rampUpS ? { rampUpMs: opts.rampUpS * 1000 } : {}),
      window: { ...(opts.warmup ? { warmup: opts.warmup } : {}), ...(opts.cooldown ? { cooldown: opts.cooldown } : {}), ...coldGapOf(runCommand) },
      ...(opts.maxErrorRate !== undefined ? { stopOnErrorRate: { maxErrorRate: opts.maxErrorRate, minSessions: opts.errorMinSessions } } : {}),
      ...maxErrorsOption(runCommand.opts() as { maxErrors?: number }),
      ...(opts.slo ? { slos: opts.slo } : {}),
      normalizer: opts.normalizer,
      diarization: diarizationOptionsFromFlags(runCommand.opts()),
      ...(opts.maxSeconds !== undefined ? { maxSeconds: opts.maxSeconds } : {}),
      ...(opts.duration !== undefined ? { duration: opts.duration } : {}),
      turnsPerSession: opts.turnsPerSession,
      padding: { leadMs: opts.leadSilenceMs, trailMs: opts.trailSilenceMs, gapMs: opts.turnGapMs },
      idleMs: opts.idleMs,
      ...(opts.updateAtMs !== undefined ? { updateAtMs: opts.updateAtMs } : {}),
      eos: opts.eosSource,
      // Only given ones: a dialect refuses the sending flags it cannot apply, and the defaults are not the user's.
      ...(givenFlag('chunkMs') ? { chunkMs: opts.chunkMs } : {}),
      ...(givenFlag('pace') ? { pace } : {}),
      ackWindowMs: opts.ackWindowMs,
      ...(opts.maskFrames ? { maskFrames: true } : {}),
      waitForAnswer: opts.waitForAnswer,
      ...(opts.bargeInAtMs !== undefined ? { bargeInAtMs: opts.bargeInAtMs } : {}),
      ...waitAudioOption(runCommand.opts() as { waitAudio?: WaitAudio }),
      workers: opts.workers,
      ...shardOptions(opts.shard, opts.shards, opts.runId),
      timeouts: { connectMs: opts.connectTimeoutMs, readyMs: opts.readyTimeoutMs, finalMs: opts.finalTimeoutMs },
      caps: sessionCapsFromFlags(runCommand.opts() as SessionCapFlags),
      ...(key ? { apiKey: key.key, apiKeySource: key.source } : {}),
      tls: { ...(opts.ca !== undefined ? { ca: readCa(opts.ca) } : {}), insecure: opts.insecure === true },
      ...(opts.resume !== undefined ? { resume: opts.resume } : {}),
      ...(outputDir !== undefined ? { outputDir } : {}),
      outputs: opts.outputs,
      meta: meta(opts.metaFile, opts.meta ?? []),
      ...(configFile ? { configFile } : {}),
      ...(opts.costPerHour !== undefined ? { pricing: { perReplicaHour: opts.costPerHour, replicas: opts.replicas } } : {}),
      ...scrapeOptionsFromFlags(runCommand.opts() as ScrapeFlags),
      // Each target's first failure is told at once; the summary counts them all.
      ...(opts.quiet ? {} : { onScrapeFailure: firstScrapeFailure() }),
      signal: interrupt.signal,
      ...(progress || live
        ? {
            onRunStart: (config) => (live?.runStart(config), progress?.start(config, outputDir ?? opts.resume!)),
            onLevelStart: (level) => progress?.levelStart(level),
            onSessionStart: () => (live?.sessionStart(), progress?.sessionStart()),
            onSessionEnd: (record) => (live?.sessionEnd(record), progress?.sessionEnd(record)),
          }
        : {}),
    }).finally(() => (progress?.stop(), live?.close()));
    for (const signal of INTERRUPTS) process.off(signal, onSignal);
    process.stdout.write(
      opts.json
        ? JSON.stringify(
            jsonSummary(report, statistics ?? DEFAULT_STATISTICS, { report: reportPath, page: written.find((file) => basename(file) === 'report.html') }),
            null,
            1,
          ) + '\n'
        : [
            renderSummary(report, { definitions: opts.definitions === true, ...(statistics ? { statistics } : {}) }),
            `Wrote: ${written.join(', ')}`,
            ...pageHint(opts.outputs, outputDir ?? opts.resume!),
          ].join('\n') + '\n',
    );
    const why = outcomeLine(report);
    if (why !== undefined) process.stderr.write(`${printable(why)}\n`);
    const code = exitCodeOf(report);
    // An interrupted run exits as a shell expects of the signal that stopped it: 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP.
    process.exitCode = code === EXIT.interrupted && stoppedBy ? signalExit(stoppedBy) : code;
  });
// Added untyped, outside the chain above, whose option types are as deep as TypeScript follows.
(runCommand as CommandUnknownOpts).addOption(
  new Option(
    '--wait-audio <audio>',
    'while waiting between utterances (--wait-for-answer, --barge-in-at-ms): silence (streamed at the pace, as a live microphone does; the default) or pause (the stream stops; unpaced it always does)',
  ).choices(WAIT_AUDIO),
);
(runCommand as CommandUnknownOpts).addOption(
  new Option(
    '--max-errors <n>',
    `stop a benchmark once this many of its sessions failed (exit code 3); whatever the flags, one whose first ${UNREACHABLE_AFTER} sessions all fail before the server answers stops`,
  ).argParser(int),
);
(runCommand as CommandUnknownOpts).addOption(
  new Option(
    '--config <file>',
    'a YAML or JSON file of run flags keyed by their long names, kebab-case (max-sessions) or camelCase (maxSessions), e.g. a scenario kept in a repository; flags given on the command line win; recorded in report.json',
  ),
);
(runCommand as CommandUnknownOpts).addOption(
  new Option(
    '--percentiles <list>',
    'statistics in the summary tables and --json, as k6 summaryTrendStats: pN (e.g. p99.9), mean, std, min, max (default: mean,p50,p90,p95,p99,max, and p50,p95 in the levels table of a sweep; count is always shown)',
  ),
);
(runCommand as CommandUnknownOpts).addOption(
  new Option('--overwrite', 'replace the run already in --output-dir (its report.json and session log); without it such a folder is refused'),
);
addDatasetFlags(runCommand);
addSessionCapFlags(runCommand);
addColdGapFlag(runCommand);
addReplayFlags(runCommand);
addScrapeFlags(runCommand);
addDiarizationFlags(runCommand);
groupOptions(runCommand, RUN_HELP_GROUPS);

/** A target of a dialect with a vendor's key variable (Deepgram, AssemblyAI, Speechmatics, ElevenLabs, OpenAI) on a host other than this machine. */
function hostedWithoutKey(protocol: Protocol, target: string): boolean {
  if (specOf(protocol).keyEnv === undefined || !URL.canParse(target)) return false; // a bad URL is refused, in its own words, by the run
  const host = new URL(target).hostname.replace(/^\[|\]$/g, '');
  return !(host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host === '0.0.0.0' || host.startsWith('127.'));
}

function firstScrapeFailure(): (url: string, error: string) => void {
  const told = new Set<string>();
  return (url, error) => {
    if (told.has(url)) return;
    told.add(url);
    process.stderr.write(`\nwarning: scrape ${printable(url)} failed: ${printable(error)} (the run goes on; failures are counted in the report)\n`);
  };
}

const INTERRUPTS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const signalExit = (signal: NodeJS.Signals): number => 128 + osConstants.signals[signal];
const waitAudioOption = ({ waitAudio }: { waitAudio?: WaitAudio }): Pick<RunOptions, 'waitAudio'> => (waitAudio !== undefined ? { waitAudio } : {});
const maxErrorsOption = ({ maxErrors }: { maxErrors?: number }): Pick<RunOptions, 'maxErrors'> => (maxErrors !== undefined ? { maxErrors } : {});

type LoadFlags = {
  profile: ProfileFlag;
  concurrency: number[];
  rate: number;
  maxOpen?: number;
  seed: number;
  seedGiven: boolean;
  stages?: LoadStage[];
  rateStages?: LoadStage[];
  capacityBy: 'concurrency' | 'rate';
  capacityMax?: number;
  capacityTolerance: number;
};

/** The load part of the run options, from the load flags. */
function loadOptions(opts: LoadFlags): Pick<RunOptions, 'profile' | 'sweep' | 'capacity'> {
  const single = (flag: string, values: number[]): number => {
    if (values.length !== 1) throw new UsageError(`${flag} takes one level with --profile ${opts.profile}; lists are for --profile sweep`);
    return values[0]!;
  };
  const required = (flag: string, stages: LoadStage[] | undefined): LoadStage[] => {
    if (!stages) throw new UsageError(`--profile ${opts.profile} needs ${flag}, e.g. ${flag} 30s:8,60s:32,30s:0`);
    return stages;
  };
  const maxOpen = opts.maxOpen !== undefined ? { maxOpen: opts.maxOpen } : {};
  switch (opts.profile) {
    case 'synchronous':
      return { profile: { kind: 'synchronous' } };
    case 'concurrent':
      return { profile: { kind: 'concurrent', concurrency: single('--concurrency', opts.concurrency) } };
    case 'constant':
      return { profile: { kind: 'constant', rate: opts.rate, ...maxOpen } };
    case 'poisson':
      return { profile: { kind: 'poisson', rate: opts.rate, seed: opts.seed, ...maxOpen } };
    case 'stages':
      return { profile: { kind: 'stages', stages: required('--stages', opts.stages) } };
    case 'rate-stages': {
      // --seed has a default: Poisson arrivals only when it was given.
      const seed = opts.seedGiven ? { seed: opts.seed } : {};
      return { profile: { kind: 'rate-stages', stages: required('--rate-stages', opts.rateStages), ...seed, ...maxOpen } };
    }
    case 'sweep':
      return { sweep: opts.concurrency };
    case 'capacity':
      return {
        capacity: {
          by: opts.capacityBy,
          start: opts.capacityBy === 'rate' ? opts.rate : single('--concurrency', opts.concurrency),
          ...(opts.capacityMax !== undefined ? { max: opts.capacityMax } : {}),
          tolerance: opts.capacityTolerance,
          seed: opts.seed,
          ...maxOpen,
        },
      };
  }
}

/** `--shard I/N`, or `--shards N` with the Indexed Job's JOB_COMPLETION_INDEX; and the run id. */
function shardOptions(
  shard: { index: number; count: number } | undefined,
  shards: number | undefined,
  runId: string | undefined,
): Pick<RunOptions, 'shard' | 'runId'> {
  const id = runId ? { runId } : {}; // an empty VOXBENCH_RUN_ID is none
  if (shard && shards !== undefined) throw new UsageError('give --shard I/N or --shards N (with JOB_COMPLETION_INDEX), not both');
  if (shards === undefined) return { ...(shard ? { shard } : {}), ...id };
  const index = process.env.JOB_COMPLETION_INDEX;
  if (index === undefined || !/^\d+$/.test(index)) {
    throw new UsageError(
      `--shards ${shards} takes the shard index from JOB_COMPLETION_INDEX (set in a Kubernetes Indexed Job's pods), which is ${index === undefined ? 'not set' : `"${index}"`}; elsewhere use --shard I/N`,
    );
  }
  return { shard: { index: Number(index), count: shards }, ...id };
}

/** The record's user entries: the file's, then `--meta` entries over them. */
function meta(file: string | undefined, entries: string[]): Meta {
  let result: Meta = {};
  if (file !== undefined) {
    try {
      result = JSON.parse(readFileSync(file, 'utf8')) as Meta;
    } catch (err) {
      throw new UsageError(`--meta-file ${file}: cannot read it as JSON (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (typeof result !== 'object' || result === null || Object.values(result).some((v) => typeof v !== 'object' || v === null)) {
      throw new UsageError(`--meta-file ${file}: expected {"section": {"key": value}}, e.g. {"deployment": {"gpu": "H100"}}`);
    }
  }
  for (const entry of entries) {
    const parsed = parseMetaEntry(entry);
    if (!parsed) throw new UsageError(`--meta ${entry}: write section.key=value, e.g. deployment.gpu=H100`);
    result[parsed.section] = { ...result[parsed.section], [parsed.key]: parsed.value };
  }
  return result;
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--ca ${file}: cannot read the certificate (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
