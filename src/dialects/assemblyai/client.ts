import { ProtocolViolation, textField, usageOf, wireText, type DecodedEvent, type SentReading, type WebSocketDialect } from '../dialect.js';
import type { DialectSettings } from '../descriptor.js';
import type { OpenAITurnDetection } from '../realtime-common.js';
import { transcriptionPolicy } from '../stt-policy.js';
import { withDefaultPath } from '../tts-common.js';
import { jsonMessageReader, other } from '../tts-sent.js';
import { ASSEMBLYAI, MESSAGE_MS } from './spec.js';

/**
 * AssemblyAI Universal-Streaming v3 (`/v3/ws`; options in the query, the key in
 * `Authorization` or a temporary `?token=`).
 *
 * connect → `Begin {id, expires_at}` → binary PCM16 (50 to 1000 ms a message) → `Turn`s:
 * while a turn runs (`end_of_turn: false`) each restates the turn's finalized words
 * (`transcript`; each word of `words` with its `speaker` given `speaker_labels=true`, the
 * words still pending with `word_is_final: false`); the turn ends with `end_of_turn: true`,
 * and with `format_turns` a formatted copy of it follows (`turn_is_formatted: true`). With
 * `speaker_labels`, a `SpeakerRevision` near the end of the stream relabels earlier turns.
 * `{"type": "ForceEndpoint"}` ends the turn now, `UpdateConfiguration` changes the
 * end-of-turn settings mid-stream, and `Terminate` flushes the turn, answered by
 * `Termination {audio_duration_seconds, session_duration_seconds}` and a close 1000. An error is
 * `{"type": "Error", "error_code", "error"}` before a close with that code (older servers: `{"error"}`).
 */
export const SAMPLE_RATE = 16_000;
const FORCE_ENDPOINT = JSON.stringify({ type: 'ForceEndpoint' });
const TERMINATE = JSON.stringify({ type: 'Terminate' });
/** Bytes of the shortest message the service takes. */
const MIN_MESSAGE_BYTES = (SAMPLE_RATE * MESSAGE_MS.min * 2) / 1000;

/**
 * Semantic turn detection's eagerness as AssemblyAI's own presets (aggressive, balanced,
 * conservative: assemblyai.com/docs/speech-to-text/universal-streaming/turn-detection);
 * `auto` leaves the service's defaults.
 */
const EAGERNESS = {
  high: { end_of_turn_confidence_threshold: 0.5, min_turn_silence: 160, max_turn_silence: 400 },
  medium: { end_of_turn_confidence_threshold: 0.7, min_turn_silence: 400, max_turn_silence: 1200 },
  low: { end_of_turn_confidence_threshold: 0.9, min_turn_silence: 800, max_turn_silence: 3600 },
  auto: {},
} as const;

/** The end-of-turn settings a turn detection asks for, under their wire names. */
export function turnSettings(td: OpenAITurnDetection): Record<string, number> {
  switch (td.type) {
    case 'none':
      return {};
    case 'server_vad':
      return { vad_threshold: td.threshold, max_turn_silence: td.silenceDurationMs };
    case 'semantic_vad':
      return EAGERNESS[td.eagerness];
  }
}

export function assemblyaiDialect(settings: DialectSettings): WebSocketDialect {
  const tunables = turnSettings(settings.turnDetection);
  const update = JSON.stringify({ type: 'UpdateConfiguration', ...tunables });
  const endsInputs = settings.turnDetection.type === 'none' ? 'client' : 'server';
  return {
    name: ASSEMBLYAI.name,
    task: 'stt',
    transport: 'websocket',
    sampleRate: SAMPLE_RATE,
    turnDetection: endsInputs,
    readyEvent: 'Begin',
    policy: () => transcriptionPolicy(endsInputs),
    connectUrl: (target) => {
      const url = withDefaultPath(target, ASSEMBLYAI.path);
      const query = {
        sample_rate: SAMPLE_RATE,
        encoding: 'pcm_s16le',
        speech_model: settings.model,
        ...tunables,
        ...(settings.diarize ? { speaker_labels: true } : {}),
      };
      // What the target's own query says (format_turns, a temporary token) stays.
      for (const [key, value] of Object.entries(query)) if (!url.searchParams.has(key)) url.searchParams.set(key, String(value));
      return url.toString();
    },
    upgradeHeaders: () => ({}),
    sessionFrames: () => [],
    sessionUpdateFrame: () => update,
    inputStartFrame: () => null,
    audioFrame: (pcm16) => (pcm16.length >= MIN_MESSAGE_BYTES ? pcm16 : Buffer.concat([pcm16, Buffer.alloc(MIN_MESSAGE_BYTES - pcm16.length)])),
    inputEndFrame: () => FORCE_ENDPOINT,
    flushFrame: () => FORCE_ENDPOINT,
    decode: (data, isBinary) => turnDecoder()(data, isBinary),
    decoder: turnDecoder,
    readSent: (data, isBinary) => (isBinary ? { kind: 'audio', pcmBytes: data.length } : readJsonSent(data, false)),
    // The service answers Terminate with Termination (its own durations) and closes, as the SDK's close() waits for.
    reactions: () => ({
      received: () => [],
      sent: () => [],
      tickMs: 0,
      tick: () => [],
      closing: () => [{ frame: TERMINATE, control: 'session_close' }],
      awaitsClose: true,
    }),
  };
}

/** A client's JSON message: `ForceEndpoint` ends an input (under server turn detection the proxy counts it as the flush). */
const readJsonSent = jsonMessageReader((m): SentReading => {
  switch (m.type) {
    case 'ForceEndpoint':
      return { kind: 'control', control: 'input_end' };
    case 'UpdateConfiguration':
      return { kind: 'control', control: 'session_update' };
    case 'Terminate':
      return { kind: 'control', control: 'session_close' };
    case 'KeepAlive':
      return { kind: 'control', control: 'heartbeat' };
    default:
      return other(m.type);
  }
});

/**
 * One session's decoder. A running turn's `Turn`s each restate its finalized words
 * (`transcript`), so only the words past those already delivered are a lasting delta; its
 * pending words (`word_is_final: false`, not yet in `transcript`) are a provisional delta
 * that the next `Turn` replaces, as Deepgram's interim results are, so text is first shown
 * when its first word is, pending or final. The turn's first `Turn` with words starts its
 * speech (at its first word's `start`); the first with `end_of_turn` stops it (at its last
 * word's `end`), commits it and is its final, the unformatted text where `format_turns`
 * sends both; a later `Turn` of an ended turn (the formatted copy) is kept with its text but
 * is never a second final. Turns are items `turn-<turn_order>`. A `SpeakerRevision` (with
 * `speaker_labels`) is the service's last word on the speakers of earlier turns: each
 * revised turn is an event of that turn's item carrying its words with their new speakers,
 * so they are the labels scored and each change counts as a relabel.
 */
export function turnDecoder(): WebSocketDialect['decode'] {
  /** Words of each running turn already delivered as deltas. */
  const delivered = new Map<number, number>();
  const ended = new Set<number>();
  return (data, isBinary) => {
    if (isBinary) throw new ProtocolViolation(`server sent a binary frame (${data.length} bytes); assemblyai speaks JSON text frames`);
    const event = parseMessage(data.toString('utf8'));
    switch (event.type) {
      case 'Begin':
        return [{ type: 'Begin', kind: 'ready' }];
      case 'Turn':
        return turnEvents(turnOf(event), delivered, ended);
      case 'SpeakerRevision':
        return revisionEvents(event);
      case 'SpeechStarted':
        return [{ type: 'SpeechStarted', kind: 'other', ...(typeof event.timestamp === 'number' ? { audioStartMs: event.timestamp } : {}) }];
      case 'Termination':
        return [{ type: 'Termination', kind: 'other', ...usageOf(pick(event, ['audio_duration_seconds', 'session_duration_seconds']), 'Termination') }];
      case 'Error':
        return [errorEvent('Error', event)];
      default:
        // Older servers send a bare `{"error": "…"}`, which the official SDK reads as an error.
        if (typeof event.type !== 'string' && event.error !== undefined) return [errorEvent('(error)', event)];
        if (typeof event.type !== 'string')
          throw new ProtocolViolation(`server sent a JSON frame without a string "type": ${data.toString('utf8').slice(0, 80)}`);
        return [{ type: event.type, kind: 'other' }];
    }
  };
}

type Word = { start?: unknown; end?: unknown; text?: unknown; word_is_final?: unknown; speaker?: unknown };

interface Turn {
  order: number;
  endOfTurn: boolean;
  transcript: string;
  /** The words in `transcript` (a word without `word_is_final` counts as final). */
  final: Word[];
  /** The words still being decided, after the final ones. */
  pending: Word[];
  raw: Record<string, unknown>;
}

/**
 * Words with their speakers (each word's `speaker`, with `speaker_labels=true`; the
 * turn's `speaker_label` is its majority, never a word's); times are ms. None unless some
 * word has a speaker. Every Turn restates them, so a later one can relabel a word.
 */
function labelledWords(words: readonly Word[]): Pick<DecodedEvent, 'words'> {
  const listed = words.map((w) => ({
    text: typeof w.text === 'string' ? w.text : '',
    ...position('startMs', w.start),
    ...position('endMs', w.end),
    ...(typeof w.speaker === 'string' ? { speaker: w.speaker } : {}),
  }));
  return listed.some((w) => w.speaker !== undefined) ? { words: listed } : {};
}

function turnEvents(turn: Turn, delivered: Map<number, number>, ended: Set<number>): DecodedEvent[] {
  const itemId = `turn-${turn.order}`;
  const base = { type: 'Turn', itemId, ...(typeof turn.raw.speaker_label === 'string' ? { speaker: turn.raw.speaker_label } : {}) };
  if (ended.has(turn.order)) return [{ ...base, kind: 'other', text: turn.transcript }];
  const tokens = turn.transcript.split(/\s+/).filter(Boolean);
  const before = delivered.get(turn.order);
  const all = [...turn.final, ...turn.pending];
  const events: DecodedEvent[] = [];
  if (before === undefined && (tokens.length > 0 || all.length > 0 || turn.endOfTurn)) {
    events.push({ ...base, kind: 'speech_started', ...position('audioStartMs', all[0]?.start) });
  }
  const fresh = tokens.slice(before ?? 0);
  const labelled = labelledWords(turn.final);
  if (fresh.length > 0) events.push({ ...base, kind: 'text_delta', channel: 'input_transcript', text: `${before ? ' ' : ''}${fresh.join(' ')}`, ...labelled });
  if (!turn.endOfTurn) {
    const shown = turn.pending.flatMap((w) => (typeof w.text === 'string' && w.text !== '' ? [w.text] : []));
    if (shown.length > 0) {
      const text = `${tokens.length > 0 ? ' ' : ''}${shown.join(' ')}`;
      events.push({ ...base, kind: 'text_delta', channel: 'input_transcript', text, provisional: true, ...labelledWords(turn.pending) });
    }
    if (events.length > 0) delivered.set(turn.order, Math.max(before ?? 0, tokens.length));
    return events.length > 0 ? events : [{ ...base, kind: 'other' }];
  }
  delivered.delete(turn.order);
  ended.add(turn.order);
  const reported = pick(turn.raw, ['end_of_turn_confidence', 'turn_order', 'language_confidence']);
  events.push(
    { ...base, kind: 'speech_stopped', ...position('audioEndMs', all[all.length - 1]?.end) },
    { ...base, kind: 'committed' },
    { ...base, kind: 'text_final', channel: 'input_transcript', text: turn.transcript, ...labelled, ...usageOf(reported, 'Turn') },
  );
  return events;
}

/** A `SpeakerRevision`: one lasting event per revised turn, of that turn's item, with its words and their revised speakers. */
function revisionEvents(event: Record<string, unknown>): DecodedEvent[] {
  const { revisions } = event;
  if (!Array.isArray(revisions)) throw new ProtocolViolation(`server sent a SpeakerRevision whose revisions are not a list: ${wireText(revisions)}`);
  const events = revisions.map((r: unknown): DecodedEvent => {
    const revision = typeof r === 'object' && r !== null ? (r as Record<string, unknown>) : {};
    const order = revision.turn_order;
    if (typeof order !== 'number' || !Number.isInteger(order) || order < 0)
      throw new ProtocolViolation(`server sent a SpeakerRevision without a whole turn_order: ${wireText(order)}`);
    const label = revision.speaker_label;
    return {
      type: 'SpeakerRevision',
      kind: 'other',
      itemId: `turn-${order}`,
      ...(typeof label === 'string' ? { speaker: label } : {}),
      ...labelledWords(wordsOf(revision.words, `SpeakerRevision of turn ${order}`)),
    };
  });
  return events.length > 0 ? events : [{ type: 'SpeakerRevision', kind: 'other' }];
}

function turnOf(event: Record<string, unknown>): Turn {
  const { turn_order: order, end_of_turn: endOfTurn, words } = event;
  if (typeof order !== 'number' || !Number.isInteger(order) || order < 0)
    throw new ProtocolViolation(`server sent a Turn without a whole turn_order: ${wireText(order)}`);
  if (typeof endOfTurn !== 'boolean') throw new ProtocolViolation(`server sent Turn ${order} without a boolean end_of_turn`);
  const transcript = textField(event, 'transcript', `Turn ${order}`);
  if (transcript === undefined) throw new ProtocolViolation(`server sent Turn ${order} without a string transcript`);
  const listed = wordsOf(words, `Turn ${order}`);
  return {
    order,
    endOfTurn,
    transcript,
    final: listed.filter((w) => w.word_is_final !== false),
    pending: listed.filter((w) => w.word_is_final === false),
    raw: event,
  };
}

/** A message's `words`: absent is none; a list's entries that are not objects are words without fields. */
function wordsOf(words: unknown, what: string): Word[] {
  if (words !== undefined && !Array.isArray(words)) throw new ProtocolViolation(`server sent ${what} whose words are not a list`);
  return ((words ?? []) as unknown[]).map((w) => (typeof w === 'object' && w !== null ? (w as Word) : {}));
}

function errorEvent(type: string, event: Record<string, unknown>): DecodedEvent {
  const code = event.error_code;
  return {
    type,
    kind: 'error',
    scope: 'session',
    message: typeof event.error === 'string' ? event.error : wireText(event.error ?? ''),
    ...(typeof code === 'number' || typeof code === 'string' ? { code: String(code) } : {}),
  };
}

/** Parses a frame that must be a JSON object (its `type` is checked by the caller: an error may come without one). */
function parseMessage(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ProtocolViolation(`server sent a frame that is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ProtocolViolation(`server sent a JSON frame that is not an object: ${text.slice(0, 80)}`);
  return value as Record<string, unknown>;
}

/** The named fields of a message, as sent. */
function pick(event: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in event).map((k) => [k, event[k]]));
}

/** A word time the server reported (ms of the session's audio), when it is a finite number. */
function position<K extends string>(key: K, ms: unknown): { [P in K]?: number } {
  return (typeof ms === 'number' && Number.isFinite(ms) ? { [key]: ms } : {}) as { [P in K]?: number };
}
