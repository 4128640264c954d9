import {
  ProtocolViolation,
  textField,
  usageOf,
  wireText,
  type CompletionPolicy,
  type DecodedEvent,
  type SentReading,
  type WebSocketDialect,
} from '../dialect.js';
import type { OpenAISettings } from '../realtime-common.js';
import { transcriptionPolicy } from '../stt-policy.js';
import type { ReceivedFrame, TurnDetection } from '../../timeline/types.js';
import { ELEVENLABS_SCRIBE, SCRIBE_AUDIO_FORMAT, SCRIBE_ERRORS, SCRIBE_SAMPLE_RATE } from './spec.js';

/**
 * ElevenLabs Scribe v2 Realtime, `/v1/speech-to-text/realtime` (the settings in the
 * query: `model_id`, `audio_format`, `commit_strategy` manual or vad with its VAD
 * thresholds, `language_code`, `include_timestamps`; the key in `xi-api-key`).
 *
 * connect → `session_started {session_id, config}` → `input_audio_chunk {audio_base_64,
 * commit: false, sample_rate}`* → `partial_transcript {text}`* (each the whole text since
 * the last commit) → a commit (the same message with empty audio and `commit: true`, or
 * the server's VAD) → `committed_transcript {text}`, then with `include_timestamps`
 * `committed_transcript_with_timestamps {text, words}` for the same segment. Errors are
 * `{message_type: <its kind>, error: <message>}`. Every message is told by `message_type`.
 */
export function elevenlabsScribeDialect(settings: Omit<OpenAISettings, 'beta'>): WebSocketDialect {
  const { turnDetection: td } = settings;
  const endsInputs: TurnDetection = td.type === 'none' ? 'client' : 'server';
  const chunk = (audio: string, commit: boolean): string =>
    `{"message_type":"input_audio_chunk","audio_base_64":"${audio}","commit":${commit},"sample_rate":${SCRIBE_SAMPLE_RATE}}`;
  const commit = chunk('', true);
  const query: Record<string, string> = {
    model_id: settings.model,
    audio_format: SCRIBE_AUDIO_FORMAT,
    commit_strategy: endsInputs === 'client' ? 'manual' : 'vad',
    // Semantic VAD has no Scribe counterpart: the server's own VAD defaults then.
    ...(td.type === 'server_vad' ? { vad_threshold: String(td.threshold), vad_silence_threshold_secs: String(td.silenceDurationMs / 1000) } : {}),
    ...(settings.language !== undefined ? { language_code: settings.language } : {}),
    include_timestamps: 'true',
  };
  return {
    name: ELEVENLABS_SCRIBE.name,
    task: 'stt',
    transport: 'websocket',
    sampleRate: SCRIBE_SAMPLE_RATE,
    turnDetection: endsInputs,
    readyEvent: 'session_started',
    policy: () => scribePolicy(endsInputs),
    connectUrl: (target) => {
      const url = new URL(target);
      if (url.pathname === '/' || url.pathname === '') url.pathname = ELEVENLABS_SCRIBE.path;
      // The target's own options stay, bar the two the client's framing and completion depend on.
      for (const [key, value] of Object.entries(query)) if (!url.searchParams.has(key) || FIXED.has(key)) url.searchParams.set(key, value);
      return url.toString();
    },
    upgradeHeaders: () => ({}),
    // Everything is in the URL: nothing to configure once the session has started, and nothing to change mid-stream.
    sessionFrames: () => [],
    sessionUpdateFrame: () => chunk('', false),
    inputStartFrame: () => null,
    audioFrame: (pcm16) => chunk(pcm16.toString('base64'), false),
    inputEndFrame: () => commit,
    flushFrame: () => commit,
    decode: (data, isBinary) => {
      if (isBinary) throw new ProtocolViolation(`server sent a binary frame (${data.length} bytes); ${ELEVENLABS_SCRIBE.name} speaks JSON text frames`);
      return [interpretScribeMessage(data.toString('utf8'))];
    },
    readSent: readScribeSent,
  };
}

/** One server message in the neutral vocabulary; what Scribe reports of itself (its configuration, word times) is kept as the event's usage. */
export function interpretScribeMessage(data: string): DecodedEvent {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new ProtocolViolation(`server sent a frame that is not JSON: ${JSON.stringify(data.slice(0, 80))}`);
  }
  if (typeof value !== 'object' || value === null || typeof (value as { message_type?: unknown }).message_type !== 'string') {
    throw new ProtocolViolation(`server sent a JSON frame without a string "message_type": ${data.slice(0, 80)}`);
  }
  const message = value as Record<string, unknown> & { message_type: string };
  const type = message.message_type;
  const text = textField(message, 'text', type) ?? '';
  switch (type) {
    case 'session_started':
      return { type, kind: 'ready', ...usageOf(message.config, 'session_started.config') };
    case 'partial_transcript':
      return { type, kind: 'text_delta', channel: 'input_transcript', text, provisional: true };
    case 'committed_transcript':
      return { type, kind: 'text_final', channel: 'input_transcript', text };
    case 'committed_transcript_with_timestamps':
      // The companion of the committed transcript just sent: its word times are Scribe's own, kept beside voxbench's.
      return { type, kind: 'other', text, ...usageOf(wordTimes(message.words), type) };
    default:
      if (SCRIBE_ERRORS.has(type)) return { type, kind: 'error', code: type, message: wireText(message.error ?? message.message ?? ''), scope: 'session' };
      return { type, kind: 'other' };
  }
}

/** The words' count and span as Scribe timed them (seconds of the session's audio), and their mean log probability. */
function wordTimes(words: unknown): object | undefined {
  if (!Array.isArray(words)) return undefined;
  const spoken = words.filter((w): w is Record<string, unknown> => typeof w === 'object' && w !== null && (w as { type?: unknown }).type !== 'spacing');
  const numbers = (key: string): number[] => spoken.flatMap((w) => (typeof w[key] === 'number' && Number.isFinite(w[key]) ? [w[key]] : []));
  const [starts, ends, logprobs] = [numbers('start'), numbers('end'), numbers('logprob')];
  return {
    words: spoken.length,
    ...(starts.length > 0 ? { start: Math.min(...starts) } : {}),
    ...(ends.length > 0 ? { end: Math.max(...ends) } : {}),
    ...(logprobs.length > 0 ? { logprob_mean: logprobs.reduce((a, b) => a + b, 0) / logprobs.length } : {}),
  };
}

/** The query options the client's own behaviour rests on: the audio it frames, and who ends turns. */
const FIXED: ReadonlySet<string> = new Set(['audio_format', 'commit_strategy']);

/**
 * Scribe's completion: the transcription policy, and under its VAD (which announces no
 * speech of its own) speech is in progress from a partial with text until the commit
 * that answers it, so the end of the stream is flushed with a commit while it is.
 */
function scribePolicy(turnDetection: TurnDetection): CompletionPolicy {
  const base = transcriptionPolicy(turnDetection);
  let uncommitted = false;
  let lastFinalMs = -Infinity;
  return {
    get ready() {
      return base.ready;
    },
    controlSent: (frame) => base.controlSent(frame),
    observe(event: ReceivedFrame) {
      if (event.kind === 'text_delta' && event.text) uncommitted = true;
      if (event.kind === 'text_final') {
        uncommitted = false;
        lastFinalMs = event.t;
      }
      return base.observe(event);
    },
    inputDone: (index) => base.inputDone(index),
    speaking: () => uncommitted,
    settled: (sinceMs) => !uncommitted && lastFinalMs >= sinceMs,
    allFinal: (inputs) => base.allFinal(inputs),
  };
}

const CHUNK_TYPE = '"message_type":"input_audio_chunk"';
const AUDIO_KEY = '"audio_base_64":"';
/** How far into a chunk its type and audio key are looked for. */
const HEAD_BYTES = 96;
const QUOTE = 0x22;

/**
 * A client's message, for the proxy. Audio chunks, almost every frame, are measured
 * without parsing: base64 holds no quote, so the audio ends at the next one. A chunk
 * with `commit: true` is the commit (the SDK's carries no audio).
 */
export function readScribeSent(data: Buffer, isBinary: boolean): SentReading {
  if (isBinary) return { kind: 'other', type: '(binary)' };
  const head = data.toString('latin1', 0, HEAD_BYTES);
  const key = head.indexOf(AUDIO_KEY);
  if (key >= 0 && head.includes(CHUNK_TYPE)) {
    const start = key + AUDIO_KEY.length;
    const end = data.indexOf(QUOTE, start);
    if (end > 0) {
      if (/"commit"\s*:\s*true/.test(data.toString('latin1', end))) return { kind: 'control', control: 'input_end' };
      return { kind: 'audio', pcmBytes: Buffer.byteLength(data.toString('latin1', start, end), 'base64') };
    }
  }
  let message: unknown;
  try {
    message = JSON.parse(data.toString('utf8'));
  } catch {
    return { kind: 'other', type: '(invalid)' };
  }
  if (typeof message !== 'object' || message === null) return { kind: 'other', type: '(invalid)' };
  const m = message as Record<string, unknown>;
  if (m.message_type !== 'input_audio_chunk') return { kind: 'other', type: typeof m.message_type === 'string' ? m.message_type : '(message)' };
  if (m.commit === true) return { kind: 'control', control: 'input_end' };
  return { kind: 'audio', pcmBytes: typeof m.audio_base_64 === 'string' ? Buffer.byteLength(m.audio_base_64, 'base64') : 0 };
}
