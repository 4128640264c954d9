import { isAscii } from 'node:buffer';
import { Base64Audio, type AudioPayload } from '../audio/base64-audio.js';
import type { Control, Failure, ReceivedFrame, SentFrame, Task, TurnDetection } from '../timeline/types.js';

/**
 * A received frame translated into the neutral vocabulary; the runner adds the time and
 * the input. An audio event may carry its undecoded `payload` (base64 text or bytes, or
 * raw bytes): the runner takes it off the recorded frame, so the timeline stays small, and
 * keeps it beside the timeline when the after-run analysis needs it.
 */
export type DecodedEvent = Omit<ReceivedFrame, 't' | 'input'> & { payload?: AudioPayload };

/**
 * What one received event means for the session, as the dialect's completion policy
 * judges it: nothing, or a failure that ends the session (errors that only fail one
 * response are recorded with `scope: 'response'` and do not end it).
 */
export type Verdict = { end: Omit<Failure, 'stage'> } | undefined;

/**
 * A dialect's completion policy, fresh for each session: it reads the session's neutral
 * events and says when a unit of work is done, failed or still pending. The runner
 * only asks; it never interprets events itself.
 */
export interface CompletionPolicy {
  observe(event: ReceivedFrame): Verdict;
  /** A control the runner sent, as recorded: a result counts only once what it answers was asked for. */
  controlSent(frame: SentFrame): void;
  /** The session may be configured (its ready event has arrived). */
  readonly ready: boolean;
  /** Client-ended inputs: whether input `index` has its final result. */
  inputDone(index: number): boolean;
  /** Server-ended inputs: whether the server is in the middle of an utterance (one a flush would commit). */
  speaking(): boolean;
  /** Server-ended inputs: whether the server committed something at or after `sinceMs` and everything it committed has its result. */
  settled(sinceMs: number): boolean;
  /** Server-ended inputs: whether every input has a final result already. */
  allFinal(inputs: number): boolean;
  /** Speech to speech: whether answers to `inputs` utterances have begun to sound (their first audio arrived). */
  answering?(inputs: number): boolean;
}

interface DialectBase {
  /** The `--protocol` name. */
  readonly name: string;
  readonly task: Task;
  /** Who ends input units with these settings. */
  readonly turnDetection: TurnDetection;
  /** PCM16 mono sample rate of the audio the dialect sends. */
  readonly sampleRate: number;
  /** A fresh completion policy for one session. */
  policy(): CompletionPolicy;
}

/**
 * A dialect over WebSocket: a pure codec (frames built as ready-to-send strings or
 * buffers, so the hot path only hands them to the socket; received frames decoded into
 * neutral events) plus its completion policy. It never touches sockets or clocks.
 */
export interface WebSocketDialect extends DialectBase {
  readonly transport: 'websocket';
  /** The URL to connect to for a `--target` (e.g. with query parameters the dialect needs). */
  connectUrl(target: string): string;
  /** Headers for the upgrade request beyond authentication. */
  upgradeHeaders(): Record<string, string>;
  /** Text-in dialects (speech generation): the frames carrying one piece of an input's text. */
  textFrame?(text: string): string;
  /** What the runner waits for before configuring the session (before streaming, with `configuresAtOpen`), for messages. */
  readonly readyEvent: string;
  /** The session's configuration goes as the socket opens and the ready event answers it (Speechmatics' `StartRecognition`). */
  readonly configuresAtOpen?: boolean;
  /** Frames sent once the session is ready (e.g. `session.update`), with the settings of the session's first sample. */
  sessionFrames(session?: SessionSettings): string[];
  /** A `session.update` to send mid-stream, as live applications change settings. */
  sessionUpdateFrame(): string;
  /** Frame that opens an input, or null when the dialect has none. */
  inputStartFrame(): string | null;
  /** Frame carrying one chunk of PCM16 audio; `span` is where it sits in the session's audio stream, ms. */
  audioFrame(pcm16: Buffer, span: { startMs: number; endMs: number }): string | Buffer;
  /**
   * Where text frames (their UTF-8 bytes) name their stream position (vLLM-Omni's `audio_end_ms`): one
   * chunk's payload encoded once before the clock, then framed at the span each send
   * has (a later turn, the silence streamed while waiting). Absent where a frame does
   * not depend on its span, so each chunk's one frame is reused as it is.
   */
  audioFramer?(pcm16: Buffer): (span: { startMs: number; endMs: number }) => Buffer;
  /** Frame that ends an input and asks for its final result (unused with an `audioChannel`, whose end request ends it). */
  inputEndFrame(): string;
  /** Server turn detection: frame that commits speech still in progress. */
  flushFrame(): string;
  /** Decodes one received frame into zero or more events; throws ProtocolViolation on a malformed one. */
  decode(data: Buffer, isBinary: boolean): DecodedEvent[];
  /** The server's error code a close reason names (Deepgram's `NET-0001`), recorded as the failure's `code`; absent where reasons name none. */
  closeReasonCode?(reason: string): string | undefined;
  /**
   * A fresh `decode` for one session, where a frame means something only beside the ones
   * before it (AssemblyAI's partials restate their turn's text: only what is new in one is
   * a delta). Absent where frames decode alone. Read through `decoderOf`.
   */
  decoder?(): WebSocketDialect['decode'];
  /**
   * Reads one frame a client sent, for `voxbench proxy`, which meters traffic it did
   * not make: media (its PCM16 byte count, never decoded; or a piece of text to speak)
   * or the control it is. Never throws. Absent where the proxy cannot meter the dialect
   * (the HTTP ones).
   */
  readSent?: (data: Buffer, isBinary: boolean) => SentReading;
  /** Frames the client sends on its own (acknowledgements, playback reports, heartbeats, a closing event): fresh per session; absent when the dialect sends none. */
  reactions?(settings: { speed: number }): Reactions;
  /** Where the audio goes over HTTP instead of the socket, which then only carries events (Livepeer's Trickle publish). */
  readonly audioChannel?: HttpAudioChannel;
}

/** One request of an audio channel, to a full URL. */
export interface ChannelRequest {
  method: 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
}

/**
 * Audio published over HTTP in segments while the events arrive on a WebSocket (Livepeer's
 * realtime app over Trickle). Only requests and readings of answers: the runner opens
 * the session with `open` before it connects the socket `opened` names, writes each
 * audio frame into the body of the segment being published, stamping it, and starts the
 * next segment only once the server's `progress` events acknowledge the last one.
 */
export interface HttpAudioChannel {
  /** The request that opens the session at the `--target` (an http:// URL), with its body. */
  open(target: string): ChannelRequest & { body: Buffer };
  /**
   * The socket to connect to and the URL to publish at, from the open request's answer
   * (2xx), with the server's id of the session where it gives one; throws
   * ProtocolViolation when it names neither.
   */
  opened(target: string, body: Buffer): { socketUrl: string; publishUrl: string; session?: string };
  /** Audio per segment, ms: a segment ends with the first frame that reaches it. */
  readonly segmentMs: number;
  /** The request publishing the next segment; its body streams as frames are written. */
  segment(publishUrl: string): ChannelRequest;
  /** The answer to a segment: its sequence number, a segment the server no longer holds (lost), or another refusal. */
  segmentAnswer(status: number, headers: Readonly<Record<string, string | string[] | undefined>>): { seq?: number } | { lost: string } | { refused: string };
  /** The request that ends the audio, once the last segment is acknowledged: the input's end. */
  end(publishUrl: string): ChannelRequest;
}

/** The decoder one session reads its frames with: a fresh one where the dialect keeps state across frames, else its `decode`. */
export function decoderOf(dialect: WebSocketDialect): WebSocketDialect['decode'] {
  return dialect.decoder?.() ?? ((data, isBinary) => dialect.decode(data, isBinary));
}

/** A sample's own settings for the session it opens (speech to speech), from its dataset row. */
export interface SessionSettings {
  /** The agent's instructions, over the run's. */
  instructions?: string;
  /** A reference voice, as a `data:` URI. */
  referenceAudio?: string;
}

/** A frame the client sends of its own accord, and the control it is recorded as. */
export interface Reaction {
  frame: string;
  control: Control;
}

/**
 * What a client sends besides its inputs, as a pure function of what happened: in
 * reaction to each event received, to each control it sent, on a timer (every
 * `tickMs`), and once as the session ends. Times are the run clock's, handed in.
 */
export interface Reactions {
  received(event: ReceivedFrame): Reaction[];
  sent(frame: SentFrame): Reaction[];
  /** How often `tick` runs, ms; 0 for never. */
  readonly tickMs: number;
  tick(now: number): Reaction[];
  closing(now: number): Reaction[];
  /**
   * The server answers the closing frames with its last messages, then closes the socket
   * itself (Deepgram's `CloseStream`: its last results and `Metadata`): they are sent once
   * the inputs are done, and the session waits briefly for that close.
   */
  readonly awaitsClose?: boolean;
}

/**
 * What a client's frame is, as far as the timeline needs: audio, a control (with the
 * model and turn detection a session configuration names), or something else. A control
 * that ends an input is `input_end`; under server turn detection it is the flush.
 * `outputRate`: the PCM16 rate the frame asks the server's audio in (Cartesia names it
 * in every request, vLLM-Omni and OpenAI Realtime in their session configuration), which
 * sizes the audio that follows.
 */
export type SentReading =
  | { kind: 'audio'; pcmBytes: number }
  /** A piece of an input's text (speech generation); `ends`: the same frame forces its synthesis (end of input). */
  | { kind: 'text'; text: string; ends?: boolean; model?: string; outputRate?: number; voice?: string; format?: string }
  /** `task`: what a configuration opens the session for, where its wire says (OpenAI Realtime's session type: `stt` for transcription, `s2s` for a conversation). */
  /** `voice`, `format`: what a speech-generation configuration asks for. */
  | { kind: 'control'; control: Control; model?: string; turnDetection?: TurnDetection; outputRate?: number; task?: Task; voice?: string; format?: string }
  | { kind: 'other'; type: string };

/** One HTTP request, prepared before the clock starts. */
export interface HttpRequest {
  method: 'POST' | 'GET';
  /** Path and query, joined to the target's origin. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Decodes one response body as it streams: chunks in, events out, and what the end of the body means. */
export interface BodyDecoder {
  chunk(data: Buffer): DecodedEvent[];
  /** The body ended: the events its remainder holds. */
  end(): DecodedEvent[];
}

/**
 * What one HTTP request carries, prepared before the clock starts: a recording (a
 * 16-bit WAV file at the dialect's rate unless the dataset's own file is kept) or a text.
 */
export type RequestInput =
  { kind: 'audio'; file: Buffer; fileName: string; contentType: string; language?: string } | { kind: 'text'; text: string; voice?: string; language?: string };

/** A dialect over HTTP: one request per input; the response body (plain, chunked or SSE) decoded as it streams. */
export interface HttpDialect extends DialectBase {
  readonly transport: 'http';
  /** The request for one input. */
  request(input: RequestInput): HttpRequest;
  /** The body decoder for a response with this status and content type. */
  bodyDecoder(status: number, contentType: string): BodyDecoder;
}

export type Dialect = WebSocketDialect | HttpDialect;

/** What the server sent breaks its protocol; the session fails with `failureClass`. */
export class ProtocolViolation extends Error {
  override name = 'ProtocolViolation';

  constructor(
    message: string,
    readonly failureClass: 'protocol_violation' | 'not_audio' = 'protocol_violation',
  ) {
    super(message);
  }
}

/** Parses a frame that must be a JSON object with a string `type`. */
export function parseEventObject(data: string): Record<string, unknown> & { type: string } {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new ProtocolViolation(`server sent a frame that is not JSON: ${JSON.stringify(data.slice(0, 80))}`);
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new ProtocolViolation(`server sent a JSON frame without a string "type": ${data.slice(0, 80)}`);
  }
  return value as Record<string, unknown> & { type: string };
}

/** Frames shorter than this are parsed whole: the audio in them is too short to be worth finding. */
const AUDIO_FRAME_BYTES = 1024;
const BACKSLASH = 0x5c;
/** What the audio is replaced with in the frame parsed: a string no other value of it can be, since the frame holds no `\u0000`. */
const CUT = '\\u0000';
const CUT_VALUE = '\u0000';

/**
 * A reader of JSON event frames whose base64 audio, the value of `key`, is read off the
 * frame's bytes rather than parsed into a string: the frame is parsed with that value
 * cut out (a few dozen characters instead of kilobytes), and the audio is a view of the
 * frame's bytes. Exactly what parsing the frame whole gives: the cut is taken only where
 * the value is plain ASCII with no escape (so its characters are its bytes), and only
 * when the parsed frame holds the cut at `key` itself (not in a nested object, nor at a
 * duplicated key) and `isAudio` says the event is audio; anything else is parsed whole,
 * its errors with it. (One difference: a raw control character inside the audio, which
 * JSON refuses, is not looked for; nor is it base64, and the after-run decoding skips it.)
 */
export function audioFrameReader<T extends Record<string, unknown>>(
  key: string,
  parse: (text: string) => T,
  isAudio: (event: T) => boolean,
): (data: Buffer) => { event: T; audio?: Base64Audio } {
  const opening = Buffer.from(`"${key}":"`);
  return (data) => {
    const whole = (): { event: T } => ({ event: parse(data.toString('utf8')) });
    if (data.length < AUDIO_FRAME_BYTES) return whole();
    const at = data.indexOf(opening);
    if (at < 0) return whole();
    const start = at + opening.length;
    const end = data.indexOf(QUOTE, start);
    if (end < 0) return whole();
    const value = data.subarray(start, end);
    if (value.includes(BACKSLASH) || !isAscii(value)) return whole();
    // The value holds no backslash, so a `\u0000` in the frame can only be before or after it.
    const head = data.toString('utf8', 0, start);
    const tail = data.toString('utf8', end);
    if (head.includes(CUT) || tail.includes(CUT)) return whole();
    let event: T;
    try {
      event = parse(`${head}${CUT}${tail}`);
    } catch {
      return whole();
    }
    if (event[key] !== CUT_VALUE || !isAudio(event)) return whole();
    delete event[key];
    return { event, audio: new Base64Audio(value) };
  };
}

/** A JSON text dialect's decoder: binary frames are a violation, every text frame is one event. */
export function jsonTextDecoder(name: string, interpret: (data: string) => DecodedEvent): WebSocketDialect['decode'] {
  return jsonBytesDecoder(name, (data) => interpret(data.toString('utf8')));
}

/** The same, `interpret` given each text frame's bytes (to read its audio off them, `audioFrameReader`). */
export function jsonBytesDecoder(name: string, interpret: (data: Buffer) => DecodedEvent): WebSocketDialect['decode'] {
  return (data, isBinary) => {
    if (isBinary) throw new ProtocolViolation(`server sent a binary frame (${data.length} bytes); ${name} speaks JSON text frames`);
    return [interpret(data)];
  };
}

/** The type of an append frame and the key of its base64 audio, found without parsing the frame. */
const APPEND_TYPE = '"input_audio_buffer.append"';
const AUDIO_KEY = '"audio":"';
/** How far into a frame its type and audio key are looked for (`{"type":"…append","audio":"` with an event id). */
const HEAD_BYTES = 128;
const QUOTE = 0x22;

/**
 * A JSON text dialect's reader of client frames. Audio appends, almost every frame, are
 * measured without parsing or even copying them: the type and the audio key are found
 * in the frame's head, and since base64 holds no quote, the audio ends at the next one.
 */
export function jsonSentReader(interpret: (event: Record<string, unknown> & { type: string }) => SentReading): WebSocketDialect['readSent'] {
  return (data, isBinary) => {
    if (isBinary) return { kind: 'other', type: '(binary)' };
    const head = data.toString('latin1', 0, HEAD_BYTES);
    const key = head.indexOf(AUDIO_KEY);
    if (key >= 0 && head.includes(APPEND_TYPE)) {
      const start = key + AUDIO_KEY.length;
      const end = data.indexOf(QUOTE, start);
      if (end > 0) return { kind: 'audio', pcmBytes: base64Bytes(data, start, end) };
    }
    try {
      const event = parseEventObject(data.toString('utf8'));
      // An append laid out otherwise (its audio first, say) is parsed whole.
      if (event.type === 'input_audio_buffer.append' && typeof event.audio === 'string') {
        return { kind: 'audio', pcmBytes: Buffer.byteLength(event.audio, 'base64') };
      }
      return interpret(event);
    } catch {
      return { kind: 'other', type: '(invalid)' };
    }
  };
}

/** Bytes the base64 in `data[start, end)` decodes to. */
function base64Bytes(data: Buffer, start: number, end: number): number {
  const padding = end - start >= 2 && data[end - 1] === 0x3d ? (data[end - 2] === 0x3d ? 2 : 1) : 0;
  return Math.floor(((end - start) * 3) / 4) - padding;
}

/**
 * The text of a delta or a final, `key` of `event` (`what` names the event in the error):
 * the string, or undefined when the event has none. Any other type (null, a number, an
 * object, a list) breaks the protocol: read as empty text it would be scored as a
 * transcript of nothing, so every dialect reads its text here.
 */
export function textField(event: Record<string, unknown>, key: string, what: string): string | undefined {
  const value = event[key];
  if (value === undefined || typeof value === 'string') return value;
  const kind = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `${typeof value} ${wireText(value)}`;
  throw new ProtocolViolation(`server sent ${what} whose "${key}" is ${kind}, not text`);
}

/** Most usage figures kept from one event. */
const USAGE_KEYS = 16;

/** A value from a server's JSON as text: a string as it is, a number or boolean printed, anything else as JSON (never "[object Object]"). */
export function wireText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}

/**
 * The numbers of a usage object a server sent (nested ones as `outer.inner`), as sent,
 * with the event that carried them; at most 16 figures with names of 64 characters.
 */
export function usageOf(value: unknown, source: string): Pick<DecodedEvent, 'usage'> {
  if (typeof value !== 'object' || value === null) return {};
  const values: Record<string, number> = {};
  const add = (prefix: string, object: object): void => {
    for (const [key, v] of Object.entries(object)) {
      if (Object.keys(values).length >= USAGE_KEYS) return;
      if (typeof v === 'number' && Number.isFinite(v)) values[`${prefix}${key}`.slice(0, 64)] = v;
      else if (prefix === '' && typeof v === 'object' && v !== null) add(`${key}.`, v as object);
    }
  };
  add('', value);
  return Object.keys(values).length > 0 ? { usage: { source, values } } : {};
}
