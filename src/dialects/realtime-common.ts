/** The OpenAI Realtime wire pieces its family shares (transcription, conversations, vLLM-Omni's duplex): turn detection, transcription events. */
import { textField, type DecodedEvent } from './dialect.js';

/** Turn detection requested from an OpenAI Realtime transcription session. */
export type OpenAITurnDetection =
  | { type: 'none' }
  | { type: 'server_vad'; threshold: number; prefixPaddingMs: number; silenceDurationMs: number }
  | { type: 'semantic_vad'; eagerness: 'low' | 'medium' | 'high' | 'auto' };

export interface OpenAISettings {
  /** Transcription model, e.g. `gpt-4o-transcribe`. */
  model: string;
  language?: string;
  prompt?: string;
  /** Speech to speech: the agent's instructions. */
  instructions?: string;
  turnDetection: OpenAITurnDetection;
  /** The legacy beta format (`transcription_session.update`, `OpenAI-Beta: realtime=v1`). */
  beta: boolean;
}

/** Turn detection as the wire spells it (`null`: the client commits). */
export function wireTurnDetection(td: OpenAITurnDetection): object | null {
  switch (td.type) {
    case 'none':
      return null;
    case 'server_vad':
      return { type: 'server_vad', threshold: td.threshold, prefix_padding_ms: td.prefixPaddingMs, silence_duration_ms: td.silenceDurationMs };
    case 'semantic_vad':
      return { type: 'semantic_vad', eagerness: td.eagerness };
  }
}

/**
 * The refusal of a commit with under 100 ms of uncommitted audio. With server turn detection
 * it answers the client's closing flush when the VAD's stop and commit were already on the
 * wire as the flush left (the VAD won the race): nothing was left to commit.
 */
export const COMMIT_EMPTY = 'input_audio_buffer_commit_empty';
/**
 * vLLM-Omni duplex's refusal of a commit with nothing appended since the last one (`resolve_commit`
 * in `vllm_omni/engine/duplex/realtime_events.py`): its answer to a closing flush that the VAD's own
 * commit beat, the rest of the chunk holding the stop being cleared with it.
 */
export const DUPLEX_COMMIT_EMPTY = 'input_audio_buffer_empty';

/** An OpenAI Realtime transcription event, already parsed, in the neutral vocabulary. */
export function openAIEventOf(event: Record<string, unknown> & { type: string }): DecodedEvent {
  const { type } = event;
  const itemId = typeof event.item_id === 'string' ? { itemId: event.item_id } : {};
  switch (type) {
    case 'session.created':
    case 'transcription_session.created':
      return { type, kind: 'ready' };
    case 'session.updated':
    case 'transcription_session.updated':
      return { type, kind: 'updated' };
    case 'input_audio_buffer.speech_started':
      return { type, kind: 'speech_started', ...itemId, ...numberField('audioStartMs', event.audio_start_ms) };
    case 'input_audio_buffer.speech_stopped':
      return { type, kind: 'speech_stopped', ...itemId, ...numberField('audioEndMs', event.audio_end_ms) };
    case 'input_audio_buffer.committed':
      return { type, kind: 'committed', ...itemId };
    case 'conversation.item.input_audio_transcription.delta':
      return { type, kind: 'text_delta', channel: 'input_transcript', text: textField(event, 'delta', type) ?? '', ...itemId };
    case 'conversation.item.input_audio_transcription.completed':
      return { type, kind: 'text_final', channel: 'input_transcript', text: textField(event, 'transcript', type) ?? '', ...itemId };
    case 'conversation.item.input_audio_transcription.failed':
      return { type, kind: 'text_failed', channel: 'input_transcript', ...itemId, ...errorFields(event.error) };
    case 'error': {
      const error = { ...errorFields(event.error), ...(typeof event.code === 'string' ? { code: event.code } : {}) };
      return { type, kind: 'error', ...error, ...(error.code === COMMIT_EMPTY ? { scope: 'commit' as const } : {}) };
    }
    default:
      return { type, kind: 'other', ...itemId };
  }
}

/** The nested OpenAI error object (a flat string is tolerated). */
function errorFields(error: unknown): { code?: string; message: string } {
  if (typeof error === 'string') return { message: error };
  if (typeof error !== 'object' || error === null) return { message: '' };
  const e = error as Record<string, unknown>;
  const code = typeof e.code === 'string' ? e.code : typeof e.type === 'string' ? e.type : undefined;
  return { ...(code !== undefined ? { code } : {}), message: typeof e.message === 'string' ? e.message : '' };
}

function numberField<K extends string>(key: K, value: unknown): { [P in K]?: number } {
  return (typeof value === 'number' ? { [key]: value } : {}) as { [P in K]?: number };
}
