import type { Base64Audio } from '../audio/base64-audio.js';
import { audioFrameReader, ProtocolViolation, usageOf, wireText, type BodyDecoder, type DecodedEvent, type HttpDialect, type RequestInput } from './dialect.js';
import { eventBytesDecoder } from './event-stream.js';
import { audioEvent, base64Bytes, speechPolicy, wavAudioStart } from './tts-common.js';
import type { Task } from '../timeline/types.js';
import { AnswerKind } from '../audio/answer-kind.js';

/**
 * What the HTTP speech-generation dialects share: the stream formats, the body decoders
 * (raw PCM, streamed or whole WAV, server-sent events), and the completion policy.
 *
 * Audio is measured from the payload's length, never decoded here: an audio event
 * carries its bytes and duration, and its undecoded `payload` for the after-run analysis
 * (the runner takes it off the recorded frame). A WAV header is never audio: it is an
 * `other` event, its rate and channels giving the durations of what follows, and so is
 * an empty delta.
 */
export type StreamFormat = 'sse' | 'audio' | 'none';
export const STREAM_FORMATS: readonly StreamFormat[] = ['sse', 'audio', 'none'];

/** What an HTTP speech dialect is built with. */
export interface SpeechSettings {
  model: string;
  /** The voice, unless a sample names its own. */
  voice?: string;
  /** vLLM-Omni's `language`, unless a sample names its own. */
  language?: string;
  instructions?: string;
  /** `pcm` or `wav` to stream; one body may be any format the server offers. */
  responseFormat: string;
  streamFormat: StreamFormat;
  /** Sample rate of headerless PCM (a WAV header names its own). */
  outputRate: number;
}

/** Streamed, speech generation is `tts`; one body (`--stream-format none`) is `batch_tts`. */
export function speechTask(streamFormat: StreamFormat): Task {
  return streamFormat === 'none' ? 'batch_tts' : 'tts';
}

/** A WAV header longer than this (it has chunks before `data`) is a protocol violation. */
const WAV_HEADER_LIMIT = 64 * 1024;

/** PCM16 audio as it arrives: bytes and duration at `rate` Hz and `channels`. */
interface PcmFormat {
  rate: number;
  channels: number;
}

/**
 * Strips a WAV header off the front of a stream: streamed WAV opens with a 44-byte
 * header whose sizes are 0xFFFFFFFF; a whole file may have more chunks before `data`.
 * `take` returns the bytes after the header (empty until it is complete), and the
 * header's format once it has been read. The header's bytes go in front of the first
 * audio's payload, so that the after-run check reads the header as it was sent.
 */
class WavHeader {
  private head = Buffer.alloc(0);
  private unsent: Buffer | undefined;
  format: PcmFormat | undefined;

  constructor(private readonly fallback: PcmFormat) {}

  take(data: Buffer): Buffer {
    if (this.format) return data;
    this.head = Buffer.concat([this.head, data]);
    const dataStart = wavDataStart(this.head);
    if (dataStart === undefined) {
      if (this.head.length > WAV_HEADER_LIMIT) throw new ProtocolViolation(`no WAV 'data' chunk in the first ${WAV_HEADER_LIMIT} bytes of the body`);
      return Buffer.alloc(0);
    }
    this.format = dataStart.format ?? this.fallback;
    const rest = this.head.subarray(dataStart.offset);
    this.unsent = this.head.subarray(0, dataStart.offset);
    this.head = Buffer.alloc(0);
    return rest;
  }

  /** `audio` as a payload: the first carries the header in front of it. */
  payload(audio: Buffer): Buffer {
    const payload = this.unsent ? Buffer.concat([this.unsent, audio]) : audio;
    this.unsent = undefined;
    return payload;
  }
}

/** Where the audio of a WAV stream starts, once the header up to `data` is in `bytes`, with its PCM format. */
function wavDataStart(bytes: Buffer): { offset: number; format?: PcmFormat } | undefined {
  if (bytes.length < 12) return undefined;
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') {
    throw new ProtocolViolation(`the body is not WAV: it starts with ${JSON.stringify(bytes.toString('latin1', 0, 12))}`);
  }
  return wavAudioStart(bytes, false);
}

/**
 * A raw audio body (streamed or whole): every chunk is audio (after a WAV header), and
 * the end of the body is the end of the response. An encoded body (MP3, FLAC, Opus, ...)
 * has its bytes counted and its duration left to the after-run analysis, which decodes it.
 */
export function rawAudioDecoder(kind: 'pcm' | 'wav' | 'encoded', format: PcmFormat): BodyDecoder {
  const header = kind === 'wav' ? new WavHeader(format) : undefined;
  return {
    chunk(data) {
      if (kind === 'encoded') return [{ type: 'audio.chunk', kind: 'audio', audioBytes: data.length, payload: data }];
      if (!header) return [audioEvent('audio.chunk', data.length, data, format.rate * format.channels)];
      const wasHeader = header.format === undefined;
      const audio = header.take(data);
      const events: DecodedEvent[] = [];
      if (wasHeader && header.format) events.push({ type: 'wav.header', kind: 'other' });
      if (audio.length > 0) events.push(audioEvent('audio.chunk', audio.length, header.payload(audio), header.format!.rate * header.format!.channels));
      return events;
    },
    end: () => [{ type: 'body.end', kind: 'response_done' }],
  };
}

/** The bytes of a WAV header a base64 delta opens with: decoded as far as needed to find `data` (64 characters at a time). */
function wavHeaderBytes(payload: string | Base64Audio): Buffer {
  const chars = Math.ceil(Math.min(payload.length, (WAV_HEADER_LIMIT * 4) / 3) / 4) * 4;
  return Buffer.from(typeof payload === 'string' ? payload.slice(0, chars) : payload.base64.toString('latin1', 0, chars), 'base64');
}

const DONE = Buffer.from('[DONE]');
const readSpeechEvent = audioFrameReader('audio', parseEventData, (e) => e.type === 'speech.audio.delta');

/** An event's data as JSON, or the violation that names it. */
function parseEventData(data: string): Record<string, unknown> {
  try {
    return JSON.parse(data) as Record<string, unknown>;
  } catch {
    throw new ProtocolViolation(`server sent an event that is not JSON: ${JSON.stringify(data.slice(0, 80))}`);
  }
}

/**
 * Server-sent events of OpenAI's speech stream, which vLLM-Omni follows:
 * `speech.audio.delta {audio: base64}`, then `speech.audio.done {usage}` or
 * `speech.audio.error {error: {message, type, param, code}}`. Events are told apart by
 * their JSON `type`, with or without `event:` lines; `data: [DONE]`, which some servers
 * add, is skipped. With WAV, the first bytes of the audio are a header, not audio. A
 * delta's audio is read off the event's bytes (`audioFrameReader`), never made a string.
 */
export function speechSseDecoder(wav: boolean, format: PcmFormat): BodyDecoder {
  /** WAV: the header bytes still to skip, once known; undefined until the first delta. */
  let headerLeft: number | undefined = wav ? undefined : 0;
  let pcm = format;
  const delta = (payload: string | Base64Audio): DecodedEvent[] => {
    let bytes = base64Bytes(payload);
    if (headerLeft === undefined) {
      const start = wavDataStart(wavHeaderBytes(payload));
      if (!start) throw new ProtocolViolation('the first WAV delta does not hold the whole WAV header');
      headerLeft = start.offset;
      pcm = start.format ?? format;
    }
    const skipped = Math.min(headerLeft, bytes);
    headerLeft -= skipped;
    bytes -= skipped;
    const events: DecodedEvent[] = skipped > 0 ? [{ type: 'wav.header', kind: 'other' }] : [];
    // The header's bytes stay in the payload: the after-run analysis strips a header as it decodes.
    if (bytes > 0) events.push(audioEvent('speech.audio.delta', bytes, payload, pcm.rate * pcm.channels));
    else if (skipped === 0) events.push({ type: 'speech.audio.delta', kind: 'other' });
    return events;
  };
  return eventBytesDecoder((data): DecodedEvent[] => {
    if (data.length === 0 || data.equals(DONE)) return [];
    const { event: value, audio } = readSpeechEvent(data);
    if (audio) return delta(audio);
    switch (value.type) {
      case 'speech.audio.delta':
        if (typeof value.audio !== 'string') throw new ProtocolViolation('speech.audio.delta without a base64 "audio" string');
        return delta(value.audio);
      case 'speech.audio.done':
        return [{ type: 'speech.audio.done', kind: 'response_done', ...usageOf(value.usage, 'speech.audio.done') }];
      case 'speech.audio.error':
      case 'error': {
        const error = (value.error ?? {}) as { message?: unknown; code?: unknown; type?: unknown };
        const code = error.code ?? error.type;
        return [
          {
            type: String(value.type),
            kind: 'error',
            scope: 'session',
            ...(code !== undefined && code !== null ? { code: wireText(code) } : {}),
            message: typeof error.message === 'string' ? error.message : JSON.stringify(value.error ?? null),
          },
        ];
      }
      default:
        return [{ type: wireText(value.type ?? 'unknown'), kind: 'other' }];
    }
  });
}

/**
 * The body decoder for a response: by its Content-Type, not by what was asked, since
 * older vLLM-Omni servers answer a streaming request with raw bytes whatever its
 * `stream_format` says.
 */
export function speechBodyDecoder(contentType: string, wav: boolean, format: PcmFormat): BodyDecoder {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'text/event-stream') return speechSseDecoder(wav, format);
  if (WAV_TYPES.has(type)) return rawAudioDecoder('wav', format);
  if (type === 'audio/pcm' || type === 'audio/l16' || !type.startsWith('audio/')) return rawAudioDecoder(wav ? 'wav' : 'pcm', format);
  return rawAudioDecoder('encoded', format);
}

/** `decoder`, failing with `not_audio` as soon as the answer's first bytes show it is not audio. */
function audioAnswer(kind: AnswerKind, decoder: BodyDecoder): BodyDecoder {
  const check = (chunk: Buffer, ended: boolean): void => {
    const notAudio = kind.see(chunk, ended);
    if (notAudio) throw new ProtocolViolation(notAudio, 'not_audio');
  };
  return {
    chunk(data) {
      check(data, false);
      return decoder.chunk(data);
    },
    end() {
      check(Buffer.alloc(0), true);
      return decoder.end();
    },
  };
}

const WAV_TYPES = new Set(['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave']);

/**
 * The request and codec both HTTP speech dialects share: `{model, input, voice,
 * instructions, response_format, speed}` and what `extra` adds for the dialect.
 */
export function speechDialect(name: string, settings: SpeechSettings, extra: (input: Extract<RequestInput, { kind: 'text' }>) => object): HttpDialect {
  const format = { rate: settings.outputRate, channels: 1 };
  const wav = settings.responseFormat === 'wav';
  return {
    name,
    task: speechTask(settings.streamFormat),
    transport: 'http',
    turnDetection: 'client',
    sampleRate: settings.outputRate,
    policy: () => speechPolicy(true),
    request(input) {
      if (input.kind !== 'text') throw new Error(`${name} sends text, not audio`);
      const voice = input.voice ?? settings.voice;
      const body = {
        model: settings.model,
        input: input.text,
        ...(voice !== undefined ? { voice } : {}),
        ...(settings.instructions !== undefined ? { instructions: settings.instructions } : {}),
        response_format: settings.responseFormat,
        ...extra(input),
      };
      return { method: 'POST', path: '/v1/audio/speech', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) };
    },
    bodyDecoder: (status, contentType) =>
      audioAnswer(new AnswerKind(status, contentType, settings.responseFormat), speechBodyDecoder(contentType, wav, format)),
  };
}
