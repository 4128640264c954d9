import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { EmissionQueue } from '../../server/sessions/emission-queue.js';
import { StreamRecognizer, type HeardWord } from '../../server/models/recognizer.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SessionFaults } from '../../server/faults/session-faults.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { StreamingVad } from '../../server/models/vad.js';
import { ELEVENLABS_SCRIBE, SCRIBE_AUDIO_FORMAT, SCRIBE_ERRORS, SCRIBE_SAMPLE_RATE } from './spec.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** A word ending this soon after the VAD's end of speech still belongs to that segment. */
const WORD_TOLERANCE_MS = 100;

/** Scribe's VAD settings: its documented ranges and defaults. */
const VAD_LIMITS = {
  vad_silence_threshold_secs: { min: 0.3, max: 3, default: 1.5 },
  vad_threshold: { min: 0.1, max: 0.9, default: 0.4 },
} as const;

interface ScribeSettings {
  modelId: string;
  commitStrategy: 'manual' | 'vad';
  vadSilenceSecs: number;
  vadThreshold: number;
  languageCode: string | null;
  includeTimestamps: boolean;
}

/**
 * One connection speaking ElevenLabs Scribe v2 Realtime: its settings from the query,
 * `session_started` echoing them, base64 `input_audio_chunk`s heard as they arrive, a
 * `partial_transcript` (the whole text since the last commit) whenever a word is heard,
 * and on each commit (the client's `commit: true`, or with `commit_strategy=vad` the
 * end of speech) a `committed_transcript`, then with `include_timestamps` its
 * `committed_transcript_with_timestamps`. Bad settings are an `invalid_request` and a
 * close (1008); bad messages an `input_error`, and the session goes on.
 */
export class ScribeSession {
  private readonly recognizer: StreamRecognizer;
  private readonly vad: StreamingVad | undefined;
  /** The settings the query asked for; undefined when they were refused. */
  private readonly settings: ScribeSettings | undefined;
  /** Words heard since the last commit, and where that commit left the stream (ms). */
  private segment: HeardWord[] = [];
  private segmentStartMs = 0;
  private readonly emissions = new EmissionQueue();
  private readonly faults: SessionFaults;

  constructor(
    ws: WebSocket,
    private readonly ctx: SessionContext,
    asked: ScribeSettings | string,
  ) {
    this.recognizer = new StreamRecognizer(ctx.references, SCRIBE_SAMPLE_RATE);
    this.settings = typeof asked === 'string' ? undefined : asked;
    this.faults = new SessionFaults(ctx.faults, ws, ctx.socket, {
      // A documented error type is its own message type; any other code is named in a generic error.
      errorFrame: (code, message) =>
        JSON.stringify(SCRIBE_ERRORS.has(code) ? { message_type: code, error: message } : { message_type: 'error', error: `${code}: ${message}` }),
      deltaFrame: () => ['{"message_type":"partial_transcript","text":"', '"}'],
      noiseFrame: () => '{"message_type":"partial_transcript","text":""}',
    });
    const settings = this.settings;
    this.vad =
      settings?.commitStrategy === 'vad'
        ? new StreamingVad(SCRIBE_SAMPLE_RATE, { threshold: settings.vadThreshold, prefixPaddingMs: 0, silenceDurationMs: settings.vadSilenceSecs * 1000 })
        : undefined;
    ws.on('close', () => this.emissions.clear());
    if (this.faults.reach('open')) return;
    if (settings === undefined) {
      this.send({ message_type: 'invalid_request', error: asked });
      ws.close(1008, 'invalid_request');
      return;
    }
    this.send({ message_type: 'session_started', session_id: randomBytes(16).toString('hex'), config: describe(settings) });
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.faults.gone) return;
    if (isBinary) return this.inputError('binary frames are not accepted: send input_audio_chunk messages as JSON text');
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data.toString('utf8')) as typeof message;
      if (typeof message !== 'object' || message === null) throw new Error();
    } catch {
      return this.inputError('the message is not a JSON object');
    }
    if (message.message_type !== 'input_audio_chunk') return this.inputError(`unknown message_type ${JSON.stringify(message.message_type)}`);
    const audio = message.audio_base_64;
    if (typeof audio !== 'string' || audio.length % 4 !== 0 || !BASE64.test(audio)) return this.inputError('audio_base_64 must be base64-encoded audio');
    if (message.sample_rate !== undefined && message.sample_rate !== SCRIBE_SAMPLE_RATE) {
      return this.inputError(`sample_rate ${JSON.stringify(message.sample_rate)} does not match audio_format ${SCRIBE_AUDIO_FORMAT}`);
    }
    const pcm = Buffer.from(audio, 'base64');
    if (pcm.length % 2 !== 0) return this.inputError('PCM16 audio must have an even number of bytes');
    if (pcm.length > 0) this.hear(pcm);
    if (message.commit === true) {
      this.segment.push(...this.faults.words(this.recognizer.flush()));
      this.vad?.reset();
      this.commit(Infinity);
    }
  }

  /** Audio heard: its words join the segment, the VAD may commit it, and a partial follows each new word. */
  private hear(pcm: Buffer): void {
    if (this.faults.reach('streaming')) return;
    const words = this.faults.words(this.recognizer.feed(pcm));
    this.segment.push(...words);
    for (const event of this.vad?.feed(pcm) ?? []) if (event.type === 'stopped') this.commit(event.audioEndMs + WORD_TOLERANCE_MS);
    if (words.length > 0 && this.segment.length > 0) this.partial(this.segment.map((w) => w.text).join(' '));
  }

  private partial(text: string): void {
    this.emissions.push(performance.now() + this.ctx.latency.delay(this.ctx.openSessions()), () => {
      this.send({ message_type: 'partial_transcript', text });
      if (this.faults.once('early-final')) this.send({ message_type: 'committed_transcript', text });
    });
  }

  /** Commits the words heard up to `untilMs`: their committed transcript after the model's finalize delay. */
  private commit(untilMs: number): void {
    if (this.faults.reach('final')) return;
    const words = this.segment.filter((w) => w.endMs <= untilMs);
    this.segment = this.segment.filter((w) => w.endMs > untilMs);
    const startMs = this.segmentStartMs;
    this.segmentStartMs = words[words.length - 1]?.endMs ?? this.segmentStartMs;
    if (this.faults.has('never-finalize')) return;
    const settings = this.settings!;
    const text = words.map((w) => w.text).join(' ');
    this.emissions.push(performance.now() + this.ctx.latency.finalize(this.ctx.openSessions()), () => {
      this.send({ message_type: 'committed_transcript', text });
      if (this.faults.has('duplicate-final')) this.send({ message_type: 'committed_transcript', text });
      if (settings.includeTimestamps) {
        this.send({
          message_type: 'committed_transcript_with_timestamps',
          text,
          ...(settings.languageCode !== null ? { language_code: settings.languageCode } : {}),
          words: timedWords(words, startMs),
        });
      }
    });
  }

  private inputError(error: string): void {
    this.send({ message_type: 'input_error', error });
  }

  private send(message: Record<string, unknown>): void {
    this.faults.deliver(JSON.stringify(message));
  }
}

/** Words as Scribe times them, in seconds, with the spacing between them; a word starts where the one before it ended. */
function timedWords(words: readonly HeardWord[], startMs: number): object[] {
  return words.flatMap((w, i) => {
    const start = (i === 0 ? startMs : words[i - 1]!.endMs) / 1000;
    const word = { text: w.text, start, end: w.endMs / 1000, type: 'word', logprob: 0 };
    return i === 0 ? [word] : [{ text: ' ', start, end: start, type: 'spacing' }, word];
  });
}

/** The settings `session_started` echoes, as Scribe names them. */
function describe(s: ScribeSettings): object {
  return {
    sample_rate: SCRIBE_SAMPLE_RATE,
    audio_format: SCRIBE_AUDIO_FORMAT,
    language_code: s.languageCode,
    model_id: s.modelId,
    commit_strategy: s.commitStrategy,
    vad_silence_threshold_secs: s.vadSilenceSecs,
    vad_threshold: s.vadThreshold,
    enable_logging: true,
    include_timestamps: s.includeTimestamps,
  };
}

/** The session's settings from its query, or why they are refused. */
export function scribeSettings(query: URLSearchParams): ScribeSettings | string {
  const modelId = query.get('model_id');
  if (!modelId) return 'model_id is required';
  const format = query.get('audio_format') ?? SCRIBE_AUDIO_FORMAT;
  if (format !== SCRIBE_AUDIO_FORMAT) return `audio_format ${format} is not served here; use ${SCRIBE_AUDIO_FORMAT}`;
  const commitStrategy = query.get('commit_strategy') ?? 'manual';
  if (commitStrategy !== 'manual' && commitStrategy !== 'vad') return `commit_strategy must be manual or vad, got ${commitStrategy}`;
  const numbers: Record<keyof typeof VAD_LIMITS, number> = { vad_silence_threshold_secs: 0, vad_threshold: 0 };
  for (const [key, limits] of Object.entries(VAD_LIMITS) as Array<[keyof typeof VAD_LIMITS, (typeof VAD_LIMITS)[keyof typeof VAD_LIMITS]]>) {
    const value = Number(query.get(key) ?? limits.default);
    if (!(value >= limits.min && value <= limits.max)) return `${key} must be between ${limits.min} and ${limits.max}, got ${query.get(key)}`;
    numbers[key] = value;
  }
  return {
    modelId,
    commitStrategy,
    vadSilenceSecs: numbers.vad_silence_threshold_secs,
    vadThreshold: numbers.vad_threshold,
    languageCode: query.get('language_code'),
    includeTimestamps: query.get('include_timestamps') === 'true',
  };
}

export const simulatedElevenLabsScribe = {
  ...ELEVENLABS_SCRIBE,
  inputRate: SCRIBE_SAMPLE_RATE,
  open: (ws, ctx, { url }) => new ScribeSession(ws, ctx, scribeSettings(url.searchParams)),
} satisfies SimulatedDialect;
