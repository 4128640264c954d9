import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { EmissionQueue } from '../../server/sessions/emission-queue.js';
import { StreamRecognizer, type HeardWord } from '../../server/models/recognizer.js';
import { SpeakerLabeller, type WordLabels } from '../../server/models/speakers.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SessionFaults } from '../../server/faults/session-faults.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { SPEECHMATICS } from './spec.js';

/** The PCM rate the simulated server takes (`audio_format.sample_rate`). */
const SAMPLE_RATE = 16_000;
/** Its `max_delay` when the client names none: a word is final once this much audio has followed its end. */
const FINAL_LAG_MS = 700;
/** The `max_delay` Speechmatics allows, seconds. */
const MAX_DELAY_S = { min: 0.7, max: 4 };
/** The models its SDK names (`Model`, 8.5): `transcription_config.model`, or the deprecated `operating_point`. */
const MODELS = ['standard', 'enhanced', 'melia-1'];
const FORMAT = '2.9';
/** Close codes Speechmatics documents for an error type; any other error closes with 1008 (policy violation). */
const CLOSE_CODES: Record<string, number> = { quota_exceeded: 4005, job_error: 4013, internal_error: 1011 };

/**
 * One connection speaking Speechmatics' real-time v2: `StartRecognition` checked and
 * answered by `RecognitionStarted` and an `Info`; each binary frame is an `AddAudio`
 * acknowledged by `AudioAdded {seq_no}`; words are heard by the server's recognizer,
 * sent as `AddPartialTranscript` while provisional and as `AddTranscript` once
 * `max_delay` (default FINAL_LAG_MS) of audio has followed them, each after the latency model's delay.
 * `ForceEndOfUtterance` makes every pending word final, then `EndOfUtterance`;
 * `EndOfStream` ends with `EndOfTranscript` and a close; `GetSpeakers` is answered with
 * `SpeakersResult` (at once, or with `final: true` just before `EndOfTranscript`). The
 * model is `model` (`standard`, `enhanced`, `melia-1`) or the deprecated
 * `operating_point`. Bad input is an `Error
 * {type, reason}` and a close; audio after the end of the stream a `Warning`.
 */
export class SpeechmaticsSession {
  private started = false;
  private ended = false;
  private seqNo = 0;
  private recognizer: StreamRecognizer;
  /** Where the current recognizer's stream starts in the session's audio, ms (each utterance forced to end starts a new one). */
  private offsetMs = 0;
  /** Words heard and not yet final (with their speaker, given `diarization: speaker`). */
  private pending: LabelledWord[] = [];
  private speakers: SpeakerLabeller | undefined;
  /** End of the last final word, ms: where the next one starts. */
  private finalEndMs = 0;
  private finalLagMs = FINAL_LAG_MS;
  /** Speakers labelled so far (numbers), and whether a `GetSpeakers {final: true}` awaits the end of the transcript. */
  private readonly heardSpeakers = new Set<number>();
  private speakersAtEnd = false;
  private readonly sessionId = randomUUID();
  private readonly emissions = new EmissionQueue();
  private readonly faults: SessionFaults;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: SessionContext,
  ) {
    this.recognizer = new StreamRecognizer(ctx.references, SAMPLE_RATE);
    this.faults = new SessionFaults(ctx.faults, ws, ctx.socket, {
      errorFrame: (type, reason) => JSON.stringify({ message: 'Error', type, reason }),
      deltaFrame: () => ['{"message":"AddPartialTranscript","format":"2.9","metadata":{"transcript":"', '"},"results":[]}'],
      noiseFrame: () => '{"message":"Info","type":"recognition_quality","quality":"broadcast","reason":"noise"}',
    });
    ws.on('close', () => this.emissions.clear());
    if (this.faults.reach('open')) return;
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.faults.gone) return;
    if (isBinary) return this.onAudio(data);
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data.toString('utf8')) as typeof message;
      if (typeof message !== 'object' || message === null) throw new Error();
    } catch {
      return this.fail('invalid_message', 'messages must be JSON objects');
    }
    if (message.message !== 'StartRecognition' && !this.started) return this.fail('protocol_error', `${String(message.message)} before StartRecognition`);
    switch (message.message) {
      case 'StartRecognition':
        return this.onStart(message);
      case 'SetRecognitionConfig':
        return;
      case 'GetSpeakers':
        // `final: true` asks for them once, at the end of the transcript; otherwise those heard so far, now.
        if (message.final === true) this.speakersAtEnd = true;
        else this.later(this.speakersResult());
        return;
      case 'ForceEndOfUtterance':
        if (this.faults.reach('final')) return;
        return this.endUtterance(false);
      case 'EndOfStream':
        this.ended = true;
        return this.endUtterance(true);
      default:
        return this.fail('invalid_message', `unknown message ${String(message.message)}`);
    }
  }

  private onStart(message: Record<string, unknown>): void {
    if (this.started) return this.fail('protocol_error', 'StartRecognition sent twice');
    const format = (message.audio_format ?? {}) as Record<string, unknown>;
    if (format.type !== 'raw' || format.encoding !== 'pcm_s16le' || format.sample_rate !== SAMPLE_RATE) {
      return this.fail('invalid_audio_type', `this server takes raw pcm_s16le audio at ${SAMPLE_RATE} Hz`);
    }
    const config = (message.transcription_config ?? {}) as Record<string, unknown>;
    if (typeof config.language !== 'string') return this.fail('invalid_config', 'transcription_config.language is required');
    for (const key of ['model', 'operating_point']) {
      if (config[key] !== undefined && !MODELS.includes(config[key] as string)) return this.fail('invalid_model', `${key} must be one of ${MODELS.join(', ')}`);
    }
    if (config.model !== undefined && config.operating_point !== undefined && config.model !== config.operating_point) {
      return this.fail('invalid_config', 'model and operating_point name different models: send model alone');
    }
    const maxDelay = config.max_delay;
    if (maxDelay !== undefined) {
      if (typeof maxDelay !== 'number' || !(maxDelay >= MAX_DELAY_S.min && maxDelay <= MAX_DELAY_S.max)) {
        return this.fail('invalid_config', `max_delay must be between ${MAX_DELAY_S.min} and ${MAX_DELAY_S.max} seconds`);
      }
      this.finalLagMs = maxDelay * 1000;
    }
    if (config.diarization !== undefined && config.diarization !== 'none' && config.diarization !== 'speaker') {
      return this.fail('invalid_config', 'diarization must be none or speaker');
    }
    if (config.diarization === 'speaker') this.speakers = new SpeakerLabeller(this.ctx.speakers, this.ctx.latency.options.seed);
    this.started = true;
    this.send({ message: 'RecognitionStarted', id: this.sessionId, language_pack_info: { language_description: config.language, word_delimiter: ' ' } });
    this.send({ message: 'Info', type: 'concurrent_session_usage', reason: 'simulated', usage: this.ctx.openSessions(), quota: 50 });
  }

  private onAudio(pcm: Buffer): void {
    if (!this.started) return this.fail('protocol_error', 'AddAudio before StartRecognition');
    if (this.ended) return this.send({ message: 'Warning', type: 'add_audio_after_eos', reason: 'audio received after EndOfStream' });
    if (this.faults.reach('streaming')) return;
    this.send({ message: 'AudioAdded', seq_no: ++this.seqNo });
    this.hear(this.recognizer.feed(pcm));
    // Words that enough audio has followed are final; the rest stay provisional.
    const lastMs = this.offsetMs + this.recognizer.receivedMs - this.finalLagMs;
    const final = this.pending.filter((w) => w.endMs <= lastMs);
    if (final.length > 0) this.later(this.transcript('AddTranscript', this.takeFinal(final.length)));
  }

  /** Words heard: provisional until final, and sent as a partial with those before them. */
  private hear(words: HeardWord[]): void {
    if (words.length === 0) return;
    this.pending.push(
      ...this.faults.words(words).map((w) => {
        const labels = this.speakers?.labels(w);
        if (labels?.label !== undefined) this.heardSpeakers.add(labels.label);
        return {
          text: w.text,
          endMs: this.offsetMs + w.endMs,
          ...(w.startMs !== undefined ? { heardStartMs: this.offsetMs + w.startMs } : {}),
          ...labels,
        };
      }),
    );
    this.later(this.transcript('AddPartialTranscript', this.timed(this.pending), true));
  }

  /** Every pending word final, then the utterance's (or the stream's) end, after the model's finalize time. */
  private endUtterance(stream: boolean): void {
    this.hear(this.recognizer.flush());
    this.offsetMs += this.recognizer.receivedMs;
    this.recognizer = new StreamRecognizer(this.ctx.references, SAMPLE_RATE);
    const words = this.takeFinal(this.pending.length);
    const at = performance.now() + this.ctx.latency.finalize(this.ctx.openSessions());
    this.emissions.push(at, () => {
      if (words.length > 0) this.send(this.transcript('AddTranscript', words));
      if (stream) {
        if (this.speakersAtEnd) this.send(this.speakersResult());
        this.send({ message: 'EndOfTranscript' });
        this.ws.close(1000);
        return;
      }
      if (this.faults.has('never-finalize')) return;
      const end = { message: 'EndOfUtterance', metadata: { start_time: this.offsetMs / 1000, end_time: this.offsetMs / 1000 } };
      this.send(end);
      if (this.faults.has('duplicate-final')) this.send(end);
    });
  }

  /** The first `count` pending words, now final, with their times. */
  private takeFinal(count: number): TimedWord[] {
    const words = this.timed(this.pending.slice(0, count));
    this.pending = this.pending.slice(count);
    if (words.length > 0) this.finalEndMs = words[words.length - 1]!.endMs;
    return words;
  }

  /** Words with their starts: where the recognizer heard it start (in overlapped speech, before the word it follows ends), else where the one before it ended. */
  private timed(words: readonly LabelledWord[]): TimedWord[] {
    let startMs = this.finalEndMs;
    return words.map((w) => {
      const word = { ...w, startMs: Math.min(w.heardStartMs ?? startMs, w.endMs) };
      startMs = w.endMs;
      return word;
    });
  }

  /**
   * An `AddTranscript` or `AddPartialTranscript` of `words`, as the API lays it out (times
   * in seconds); a partial shows each word's first label, its times moved by the server's
   * re-timing.
   */
  private transcript(message: string, words: readonly TimedWord[], partial = false): object {
    const shiftMs = partial ? this.ctx.speakers.retimeMs : 0;
    const s = (ms: number): number => Math.round(ms + shiftMs) / 1000;
    return {
      message,
      format: FORMAT,
      metadata: {
        start_time: s(words[0]?.startMs ?? this.finalEndMs),
        end_time: s(words[words.length - 1]?.endMs ?? this.finalEndMs),
        transcript: words.map((w) => w.text).join(' '),
      },
      results: words.map((w) => ({
        type: 'word',
        start_time: s(w.startMs),
        end_time: s(w.endMs),
        alternatives: [{ content: w.text, confidence: 1, language: 'en', ...(this.speakers ? { speaker: speakerOf(partial ? w.shown : w.label) } : {}) }],
      })),
    };
  }

  /** `SpeakersResult`: each speaker labelled so far, by the label its words carry, with an identifier of this session's voice (opaque, as the service's are). */
  private speakersResult(): object {
    const labels = [...this.heardSpeakers].sort((a, b) => a - b).map((n) => `S${n + 1}`);
    return { message: 'SpeakersResult', speakers: labels.map((label) => ({ label, speaker_identifiers: [`voxbench-${this.sessionId}-${label}`] })) };
  }

  /** Sends `message` after the latency model's delay, in order after every earlier one. */
  private later(message: object): void {
    this.emissions.push(performance.now() + this.ctx.latency.delay(this.ctx.openSessions()), () => this.send(message));
  }

  /** An `Error`, then the close Speechmatics gives its type. */
  private fail(type: string, reason: string): void {
    this.send({ message: 'Error', type, reason });
    this.faults.close(CLOSE_CODES[type] ?? 1008, type);
  }

  private send(message: object): void {
    this.faults.deliver(JSON.stringify(message));
  }
}

export const simulatedSpeechmatics = {
  ...SPEECHMATICS,
  inputRate: SAMPLE_RATE,
  open: (ws, ctx) => new SpeechmaticsSession(ws, ctx),
} satisfies SimulatedDialect;

/** A heard word in the session's stream: where the recognizer placed its start, and its speaker number when diarizing. */
type LabelledWord = HeardWord & WordLabels & { heardStartMs?: number };

/** A speaker number as Speechmatics names it; `UU` where the server cannot tell. */
const speakerOf = (n: number | undefined): string => (n !== undefined ? `S${n + 1}` : 'UU');
type TimedWord = LabelledWord & { startMs: number };
