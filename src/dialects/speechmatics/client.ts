import { ProtocolViolation, textField, wireText, type DecodedEvent, type Reactions, type SentReading, type WebSocketDialect } from '../dialect.js';
import type { DialectSettings } from '../descriptor.js';
import { transcriptionPolicy } from '../stt-policy.js';
import { withDefaultPath } from '../tts-common.js';
import { SPEECHMATICS } from './spec.js';

/**
 * Speechmatics' real-time API v2. Every JSON message names itself in `message`, not `type`.
 *
 * connect → `StartRecognition {audio_format, transcription_config {model, …}}` (sent at once: the
 * server says nothing first) → `RecognitionStarted` → binary audio, each frame an
 * `AddAudio` the server acknowledges with `AudioAdded {seq_no}` → `AddPartialTranscript`*
 * (provisional) and `AddTranscript`* (final words, with `metadata {start_time, end_time,
 * transcript}`) → `ForceEndOfUtterance` (the explicit flush) → the last `AddTranscript`,
 * then `EndOfUtterance` → … → `EndOfStream {last_seq_no}` → `EndOfTranscript` → close.
 * `Info` and `Warning {type, reason}` are recorded; an `Error {type, reason}` ends the session.
 * Sources: speechmatics/speechmatics-js-sdk `packages/real-time-client/src/client.ts`,
 * speechmatics/speechmatics-python `speechmatics/client.py`, docs.speechmatics.com/rt-api-ref.
 */
export const SAMPLE_RATE = 16_000;
const DEFAULT_LANGUAGE = 'en';

export function speechmaticsDialect(settings: DialectSettings): WebSocketDialect {
  const transcriptionConfig = {
    language: settings.language ?? DEFAULT_LANGUAGE,
    // `model` is what the current API takes; `operating_point` is kept by the SDK only for backward compatibility, and never sent with it (docs/providers/speechmatics.md).
    model: settings.model,
    enable_partials: true,
    ...(settings.diarize ? { diarization: 'speaker' } : {}),
    ...(settings.maxDelayMs !== undefined ? { max_delay: settings.maxDelayMs / 1000 } : {}),
  };
  const start = JSON.stringify({
    message: 'StartRecognition',
    audio_format: { type: 'raw', encoding: 'pcm_s16le', sample_rate: SAMPLE_RATE },
    transcription_config: transcriptionConfig,
  });
  const update = JSON.stringify({ message: 'SetRecognitionConfig', transcription_config: { enable_partials: true } });
  const flush = JSON.stringify({ message: 'ForceEndOfUtterance' });
  return {
    name: SPEECHMATICS.name,
    task: 'stt',
    transport: 'websocket',
    sampleRate: SAMPLE_RATE,
    turnDetection: 'client',
    readyEvent: 'RecognitionStarted',
    configuresAtOpen: true,
    policy: () => transcriptionPolicy('client'),
    connectUrl: (target) => withDefaultPath(target, SPEECHMATICS.path).toString(),
    upgradeHeaders: () => ({}),
    sessionFrames: () => [start],
    sessionUpdateFrame: () => update,
    inputStartFrame: () => null,
    audioFrame: (pcm16) => pcm16,
    inputEndFrame: () => flush,
    flushFrame: () => flush,
    decode: decodeSpeechmatics,
    readSent: readSpeechmaticsSent,
    reactions: endOfStream,
  };
}

/**
 * The session's close, as the SDKs make it: `EndOfStream` naming the last frame the
 * server acknowledged, so it knows no audio is still on its way.
 */
function endOfStream(): Reactions {
  let lastSeqNo = 0;
  return {
    received: (event) => {
      if (event.audioFrames !== undefined) lastSeqNo = Math.max(lastSeqNo, event.audioFrames);
      return [];
    },
    sent: () => [],
    tickMs: 0,
    tick: () => [],
    closing: () => [{ frame: JSON.stringify({ message: 'EndOfStream', last_seq_no: lastSeqNo }), control: 'session_close' }],
    // The server answers EndOfStream with EndOfTranscript and closes, as the SDKs wait for.
    awaitsClose: true,
  };
}

/** Decodes one server frame; Speechmatics sends only JSON text. */
export function decodeSpeechmatics(data: Buffer, isBinary: boolean): DecodedEvent[] {
  if (isBinary) throw new ProtocolViolation(`server sent a binary frame (${data.length} bytes); speechmatics speaks JSON text frames`);
  return [interpretSpeechmaticsMessage(parseMessage(data.toString('utf8')))];
}

export function interpretSpeechmaticsMessage(event: Record<string, unknown> & { message: string }): DecodedEvent {
  const type = event.message;
  switch (type) {
    case 'RecognitionStarted':
      return { type, kind: 'ready' };
    case 'AudioAdded':
      // Counts frames, not time: the runner places it at the end of the frame it counts to.
      return typeof event.seq_no === 'number' ? { type, kind: 'progress', audioFrames: event.seq_no } : { type, kind: 'other' };
    case 'AddPartialTranscript':
      return { type, kind: 'text_delta', channel: 'input_transcript', provisional: true, ...transcriptOf(event) };
    case 'AddTranscript':
      return { type, kind: 'text_delta', channel: 'input_transcript', ...transcriptOf(event) };
    case 'EndOfUtterance':
      // Carries no text: the utterance's final transcript is the AddTranscripts before it.
      return { type, kind: 'text_final', channel: 'input_transcript', ...positionsOf(event.metadata) };
    case 'Info':
    case 'Warning':
      return { type, kind: 'other', ...reasonOf(event) };
    case 'Error':
      return { type, kind: 'error', scope: 'session', ...reasonOf(event) };
    default:
      return { type, kind: 'other' };
  }
}

/**
 * A transcript message's text, with a space before it so successive ones join into
 * words, and where the server placed it in the audio (`metadata.start_time`/`end_time`,
 * seconds, kept as `audioStartMs`/`audioEndMs`).
 */
function transcriptOf(event: Record<string, unknown>): Pick<DecodedEvent, 'text' | 'audioStartMs' | 'audioEndMs' | 'words'> {
  const metadata = (typeof event.metadata === 'object' && event.metadata !== null ? event.metadata : {}) as Record<string, unknown>;
  const text = (textField(metadata, 'transcript', `${wireText(event.message)} metadata`) ?? wordsOf(event.results)).trim();
  return { text: text === '' ? '' : ` ${text}`, ...positionsOf(metadata), ...labelledWords(event.results) };
}

/**
 * The words of `results` with their speakers (`alternatives[0].speaker`: `S1`, `S2`, …,
 * `UU` where the server cannot tell, with `diarization: speaker`), punctuation left out;
 * none unless some word has a speaker.
 */
function labelledWords(results: unknown): Pick<DecodedEvent, 'words'> {
  if (!Array.isArray(results)) return {};
  const words = (results as Array<Record<string, unknown>>).flatMap((result) => {
    const best = Array.isArray(result?.alternatives) ? (result.alternatives[0] as { content?: unknown; speaker?: unknown } | undefined) : undefined;
    if (result?.type === 'punctuation' || typeof best?.content !== 'string') return [];
    return [
      {
        text: best.content,
        ...(typeof result.start_time === 'number' ? { startMs: result.start_time * 1000 } : {}),
        ...(typeof result.end_time === 'number' ? { endMs: result.end_time * 1000 } : {}),
        ...(typeof best.speaker === 'string' ? { speaker: best.speaker } : {}),
      },
    ];
  });
  return words.some((w) => w.speaker !== undefined) ? { words } : {};
}

/** The text of `results` when `metadata.transcript` is missing: each result's best alternative, punctuation attached to its word. */
function wordsOf(results: unknown): string {
  if (!Array.isArray(results)) return '';
  let text = '';
  for (const result of results as Array<Record<string, unknown>>) {
    const best = Array.isArray(result?.alternatives) ? (result.alternatives[0] as { content?: unknown } | undefined) : undefined;
    if (typeof best?.content !== 'string') continue;
    text += result.type === 'punctuation' || text === '' ? best.content : ` ${best.content}`;
  }
  return text;
}

function positionsOf(metadata: unknown): Pick<DecodedEvent, 'audioStartMs' | 'audioEndMs'> {
  if (typeof metadata !== 'object' || metadata === null) return {};
  const { start_time: start, end_time: end } = metadata as Record<string, unknown>;
  return {
    ...(typeof start === 'number' ? { audioStartMs: start * 1000 } : {}),
    ...(typeof end === 'number' ? { audioEndMs: end * 1000 } : {}),
  };
}

/** `Info`, `Warning` and `Error` name their kind in `type` and explain it in `reason`. */
function reasonOf(event: Record<string, unknown>): Pick<DecodedEvent, 'code' | 'message'> {
  return {
    ...(event.type !== undefined ? { code: wireText(event.type) } : {}),
    message: typeof event.reason === 'string' ? event.reason : '',
  };
}

/** Parses a frame that must be a JSON object with a string `message`. */
function parseMessage(data: string): Record<string, unknown> & { message: string } {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new ProtocolViolation(`server sent a frame that is not JSON: ${JSON.stringify(data.slice(0, 80))}`);
  }
  if (typeof value !== 'object' || value === null || typeof (value as { message?: unknown }).message !== 'string') {
    throw new ProtocolViolation(`server sent a JSON frame without a string "message": ${data.slice(0, 80)}`);
  }
  return value as Record<string, unknown> & { message: string };
}

/** A client's frame, for the proxy: binary frames are audio; `ForceEndOfUtterance` ends an input, `EndOfStream` the session. */
export function readSpeechmaticsSent(data: Buffer, isBinary: boolean): SentReading {
  if (isBinary) return { kind: 'audio', pcmBytes: data.length };
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
    if (typeof event !== 'object' || event === null) return { kind: 'other', type: '(invalid)' };
  } catch {
    return { kind: 'other', type: '(invalid)' };
  }
  const config = (event.transcription_config ?? {}) as { model?: unknown; operating_point?: unknown };
  // Clients name the model as the current API does (`model`) or as older ones did (`operating_point`).
  const model = typeof config.model === 'string' ? config.model : typeof config.operating_point === 'string' ? config.operating_point : undefined;
  switch (event.message) {
    case 'StartRecognition':
      return {
        kind: 'control',
        control: 'session_config',
        turnDetection: 'client',
        ...(model !== undefined ? { model } : {}),
      };
    case 'SetRecognitionConfig':
      return { kind: 'control', control: 'session_update' };
    case 'ForceEndOfUtterance':
      return { kind: 'control', control: 'input_end' };
    case 'EndOfStream':
      return { kind: 'control', control: 'session_close' };
    default:
      return { kind: 'other', type: typeof event.message === 'string' ? event.message : '(invalid)' };
  }
}
