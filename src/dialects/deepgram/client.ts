import type { TurnDetection } from '../../timeline/types.js';
import {
  parseEventObject,
  ProtocolViolation,
  textField,
  usageOf,
  type DecodedEvent,
  type Reactions,
  type SentReading,
  type WebSocketDialect,
} from '../dialect.js';
import type { OpenAITurnDetection } from '../realtime-common.js';
import { transcriptionPolicy } from '../stt-policy.js';
import { stringField, withDefaultPath } from '../tts-common.js';
import { jsonMessageReader, other } from '../tts-sent.js';
import { DEEPGRAM } from './spec.js';

/** The PCM16 rate voxbench streams at (`encoding=linear16&sample_rate=16000`). */
const SAMPLE_RATE = 16_000;
/** Deepgram closes a stream that has had neither audio nor a message for 10 s (NET-0001) and asks for a KeepAlive every 3 to 5 s: wall time, whatever the pace. */
export const KEEPALIVE_MS = 4_000;
/** Deepgram's smallest `utterance_end_ms`. */
const MIN_UTTERANCE_END_MS = 1_000;

const FINALIZE = '{"type":"Finalize"}';
const KEEPALIVE = '{"type":"KeepAlive"}';
const CLOSE_STREAM = '{"type":"CloseStream"}';
/** A mid-stream `Configure` that changes nothing (absent `keyterms` keep the stream's). */
const CONFIGURE = '{"type":"Configure"}';

export interface DeepgramSettings {
  model: string;
  language?: string;
  turnDetection: OpenAITurnDetection;
  /** Ask for each word's speaker (`diarize=true`). */
  diarize?: boolean;
}

/**
 * Deepgram live transcription, `/v1/listen` (Nova): the options in the query, raw
 * linear16 audio in binary frames, JSON messages back.
 *
 * connect (nothing is sent on open) → binary audio* → `Results` (interim with
 * `is_final: false`, each restating the text of the audio not yet final; `is_final:
 * true` once a range is final; `speech_final: true` where endpointing ends an
 * utterance) → with client turns `Finalize` per input, answered by a Results with
 * `from_finalize: true` → `CloseStream` at the end (the server's last Results and
 * `Metadata`, then its close). `SpeechStarted` (`vad_events`) and `UtteranceEnd`
 * (`utterance_end_ms`) mark speech; `KeepAlive` holds an idle stream open; errors
 * close the socket with the reason's code (NET-0000, NET-0001, DATA-0000), or come as
 * `{"type": "Error", variant, description}`. A mid-stream `Configure` is answered by
 * exactly one `ConfigureSuccess` (the update took effect) or `ConfigureFailure` (refused;
 * the stream goes on with its settings), as Deepgram does since 2026-10-19.
 */
export function deepgramDialect(settings: DeepgramSettings): WebSocketDialect {
  const turnDetection: TurnDetection = settings.turnDetection.type === 'none' ? 'client' : 'server';
  const { format, options } = listenQuery(settings);
  return {
    name: DEEPGRAM.name,
    task: 'stt',
    transport: 'websocket',
    sampleRate: SAMPLE_RATE,
    turnDetection,
    readyEvent: 'open',
    // Deepgram greets with nothing: the stream is ready once the socket is open (the policy's methods are closures, so its copy keeps them).
    policy: () => ({ ...transcriptionPolicy(turnDetection), ready: true }),
    connectUrl: (target) => {
      const url = withDefaultPath(target, DEEPGRAM.path);
      // The audio's format is what voxbench sends; any other option the target names is kept as given.
      for (const [key, value] of Object.entries(format)) url.searchParams.set(key, value);
      for (const [key, value] of Object.entries(options)) if (!url.searchParams.has(key)) url.searchParams.set(key, value);
      return url.toString();
    },
    upgradeHeaders: () => ({}),
    sessionFrames: () => [],
    sessionUpdateFrame: () => CONFIGURE,
    inputStartFrame: () => null,
    audioFrame: (pcm16) => pcm16,
    inputEndFrame: () => FINALIZE,
    flushFrame: () => FINALIZE,
    decode: (data, isBinary) => listenReader(turnDetection)(data, isBinary),
    decoder: () => listenReader(turnDetection),
    readSent: readDeepgramSent,
    closeReasonCode,
    reactions: keepAlive,
  };
}

/**
 * The query: the audio's format, and the options that follow from the run's settings.
 * Client turns turn endpointing off (each input ends with `Finalize`); server turns map
 * `server_vad`'s silence onto `endpointing` and `utterance_end_ms` and ask for
 * `vad_events`; `semantic_vad` leaves endpointing at Deepgram's default.
 */
function listenQuery({ model, language, turnDetection, diarize }: DeepgramSettings): { format: Record<string, string>; options: Record<string, string> } {
  const options: Record<string, string> = { model, interim_results: 'true' };
  if (language !== undefined) options.language = language;
  if (diarize) options.diarize = 'true';
  if (turnDetection.type === 'none') options.endpointing = 'false';
  else options.vad_events = 'true';
  if (turnDetection.type === 'server_vad') {
    options.endpointing = String(turnDetection.silenceDurationMs);
    options.utterance_end_ms = String(Math.max(MIN_UTTERANCE_END_MS, turnDetection.silenceDurationMs));
  }
  return { format: { encoding: 'linear16', sample_rate: String(SAMPLE_RATE), channels: '1' }, options };
}

/**
 * Reads one session's messages into neutral events. Deepgram's interim results restate
 * the text of the audio not yet final: each is a provisional delta (a hypothesis the next
 * replaces), each `is_final` range a lasting one, and the end of the utterance a final
 * carrying all its ranges, so the reader keeps the utterance in progress. With client turns an utterance ends only at the Results
 * a `Finalize` produced (`from_finalize`); with server turns also at `speech_final` or an
 * `UtteranceEnd` after final words, each utterance an item the server spoke, started,
 * stopped and committed. Every Results keeps the server's audio cursor (`start`,
 * `start + duration`) as `audioStartMs`/`audioEndMs`; `Metadata` keeps its figures as
 * usage and its request id as the message.
 */
export function listenReader(turnDetection: TurnDetection): WebSocketDialect['decode'] {
  const server = turnDetection === 'server';
  /** The utterance in progress: its words in final ranges, and whether its speech has started. */
  let finalized: string[] = [];
  let started = false;
  let utterance = 0;
  const item = (): { itemId?: string } => (server ? { itemId: `utterance-${utterance}` } : {});
  /** The events that end the utterance, with server turns its stop (`audioEndMs` where the server says) and commit first. */
  const end = (type: string, cursor: Cursor, audioEndMs = cursor.audioEndMs): DecodedEvent[] => {
    const events: DecodedEvent[] = server
      ? [
          { type, kind: 'speech_stopped', ...item(), ...(audioEndMs !== undefined ? { audioEndMs } : {}) },
          { type, kind: 'committed', ...item() },
        ]
      : [];
    events.push({ type, kind: 'text_final', channel: 'input_transcript', text: finalized.join(' '), ...item(), ...cursor });
    finalized = [];
    started = false;
    utterance++;
    return events;
  };
  const results = (type: string, event: Record<string, unknown>): DecodedEvent[] => {
    const cursor = cursorOf(event);
    const words = transcriptOf(event).split(/\s+/).filter(Boolean);
    const labelled = labelledWords(event);
    const ends = event.from_finalize === true || (server && event.speech_final === true);
    const lasting = event.is_final === true || ends;
    const events: DecodedEvent[] = [];
    if (words.length > 0) {
      const text = `${finalized.length > 0 ? ' ' : ''}${words.join(' ')}`;
      events.push({
        type,
        kind: 'text_delta',
        channel: 'input_transcript',
        text,
        ...(lasting ? {} : { provisional: true as const }),
        ...labelled,
        ...item(),
        ...cursor,
      });
      started = true;
    }
    if (lasting) finalized.push(...words);
    // With server turns a flush of nothing ends no utterance; with client turns it answers the input's Finalize.
    if (ends && (!server || started || finalized.length > 0)) events.push(...end(type, cursor));
    return events.length > 0 ? events : [{ type, kind: 'other', ...cursor }];
  };
  return (data, isBinary) => {
    if (isBinary) throw new ProtocolViolation(`server sent a binary frame (${data.length} bytes); deepgram speaks JSON text frames`);
    const event = parseEventObject(data.toString('utf8'));
    const { type } = event;
    switch (type) {
      case 'Results':
        return results(type, event);
      case 'SpeechStarted': {
        const at = seconds(event.timestamp);
        if (started) return [{ type, kind: 'other', ...(at !== undefined ? { audioStartMs: at } : {}) }];
        started = true;
        return [{ type, kind: 'speech_started', ...item(), ...(at !== undefined ? { audioStartMs: at } : {}) }];
      }
      case 'UtteranceEnd': {
        const at = seconds(event.last_word_end);
        if (server && finalized.length > 0) return end(type, {}, at);
        if (server && started) {
          // Speech that came to no word: it stops, and the next speech is the same utterance.
          started = false;
          return [{ type, kind: 'speech_stopped', ...item(), ...(at !== undefined ? { audioEndMs: at } : {}) }];
        }
        return [{ type, kind: 'other', ...(at !== undefined ? { audioEndMs: at } : {}) }];
      }
      case 'Metadata': {
        const requestId = stringField(event.request_id);
        return [
          { type, kind: 'other', ...usageOf({ duration: event.duration, channels: event.channels }, type), ...(requestId ? { message: requestId } : {}) },
        ];
      }
      // Each Configure is answered by exactly one of these: taking effect (the update's latency ends there) or refused (the stream goes on with its settings).
      case 'ConfigureSuccess':
        return [{ type, kind: 'updated' }];
      case 'ConfigureFailure':
        return [{ type, kind: 'error', scope: 'update', code: type, message: stringField(event.description) || stringField(event.message) }];
      case 'Error': {
        const code = stringField(event.code) || stringField(event.variant);
        return [{ type, kind: 'error', message: stringField(event.description) || stringField(event.message), ...(code ? { code } : {}) }];
      }
      default:
        return [{ type, kind: 'other' }];
    }
  };
}

/** The server's audio cursor for a Results: the range it transcribed, ms of the stream. */
type Cursor = Pick<DecodedEvent, 'audioStartMs' | 'audioEndMs'>;

function cursorOf(event: Record<string, unknown>): Cursor {
  const start = seconds(event.start);
  const duration = seconds(event.duration);
  return start === undefined ? {} : { audioStartMs: start, ...(duration !== undefined ? { audioEndMs: start + duration } : {}) };
}

/** A Results' transcript: its first alternative's; a Results without one breaks the protocol. */
function transcriptOf(event: Record<string, unknown>): string {
  const channel = event.channel as { alternatives?: unknown[] } | undefined;
  const best = Array.isArray(channel?.alternatives) ? channel.alternatives[0] : undefined;
  const transcript = typeof best === 'object' && best !== null ? textField(best as Record<string, unknown>, 'transcript', 'a Results alternative') : undefined;
  if (transcript === undefined) throw new ProtocolViolation('server sent a Results without channel.alternatives[0].transcript');
  return transcript;
}

/**
 * A Results' words with their speakers (`channel.alternatives[0].words[]`: `word`,
 * `punctuated_word`, `start`, `end` in seconds, and `speaker`, a number, with
 * `diarize=true`); none unless some word has a speaker.
 */
function labelledWords(event: Record<string, unknown>): Pick<DecodedEvent, 'words'> {
  const channel = event.channel as { alternatives?: Array<{ words?: unknown }> } | undefined;
  const words = Array.isArray(channel?.alternatives) ? channel.alternatives[0]?.words : undefined;
  if (!Array.isArray(words) || !words.some((w) => typeof (w as { speaker?: unknown })?.speaker === 'number')) return {};
  return {
    words: (words as Array<Record<string, unknown>>).map((w) => ({
      text: stringField(w.punctuated_word) || stringField(w.word),
      ...timed('startMs', seconds(w.start)),
      ...timed('endMs', seconds(w.end)),
      ...(typeof w.speaker === 'number' ? { speaker: String(w.speaker) } : {}),
    })),
  };
}

const timed = <K extends string>(key: K, ms: number | undefined): { [P in K]?: number } => (ms === undefined ? {} : ({ [key]: ms } as { [P in K]?: number }));

/** Deepgram's times are seconds; the timeline's are ms. */
function seconds(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined;
}

/**
 * Deepgram's error code in a close reason: named (`NET-0000`: the server produced no
 * transcript in time; `NET-0001`: the client sent nothing for 10 s; `DATA-0000`: audio it
 * cannot decode), or only in its help link (`https://dpgr.am/net0001`).
 */
export function closeReasonCode(reason: string): string | undefined {
  const named = /\b(NET|DATA)-?(\d{4})\b/i.exec(reason);
  return named ? `${named[1]!.toUpperCase()}-${named[2]}` : undefined;
}

/** A client's frame: binary audio (raw linear16), or a JSON control. */
export function readDeepgramSent(data: Buffer, isBinary: boolean): SentReading {
  return isBinary ? { kind: 'audio', pcmBytes: data.length } : readControl(data, false);
}

const readControl = jsonMessageReader((m) => {
  switch (m.type) {
    case 'Finalize':
      return { kind: 'control', control: 'input_end' };
    case 'KeepAlive':
      return { kind: 'control', control: 'heartbeat' };
    case 'CloseStream':
      return { kind: 'control', control: 'session_close' };
    case 'Configure':
      return { kind: 'control', control: 'session_update' };
    default:
      return other(m.type);
  }
});

/** A KeepAlive every KEEPALIVE_MS while the session runs (so no wait for a final or an idle spell reaches NET-0001), and `CloseStream` at its end, whose last Results and Metadata are awaited. */
function keepAlive(): Reactions {
  let last: number | undefined;
  return {
    received: () => [],
    sent: () => [],
    tickMs: 1_000,
    tick(now) {
      last ??= now;
      if (now - last < KEEPALIVE_MS) return [];
      last = now;
      return [{ frame: KEEPALIVE, control: 'heartbeat' }];
    },
    closing: () => [{ frame: CLOSE_STREAM, control: 'session_close' }],
    awaitsClose: true,
  };
}
