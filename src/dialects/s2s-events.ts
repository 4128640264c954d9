import { base64Bytes } from './tts-common.js';
import { audioFrameReader, parseEventObject, textField, type DecodedEvent, type SentReading } from './dialect.js';
import { COMMIT_EMPTY, DUPLEX_COMMIT_EMPTY, openAIEventOf } from './realtime-common.js';

/**
 * The server events of a speech-to-speech conversation, as OpenAI Realtime and
 * vLLM-Omni's duplex server send them: the OpenAI transcription events (VAD, commits,
 * the user's transcript) plus a response's lifecycle, audio, transcript and text. GA
 * names (`response.output_audio.delta`, `response.output_audio_transcript.delta`,
 * `response.output_text.delta`) and the older beta ones (`response.audio.delta`,
 * `response.audio_transcript.delta`, `response.text.delta`) mean the same.
 */
const RESPONSE_EVENTS: Record<string, Pick<DecodedEvent, 'kind' | 'channel'>> = {
  'response.output_audio.delta': { kind: 'audio' },
  'response.audio.delta': { kind: 'audio' },
  'response.output_audio.done': { kind: 'audio_final' },
  'response.audio.done': { kind: 'audio_final' },
  'response.output_audio_transcript.delta': { kind: 'text_delta', channel: 'response_transcript' },
  'response.audio_transcript.delta': { kind: 'text_delta', channel: 'response_transcript' },
  'response.output_audio_transcript.done': { kind: 'text_final', channel: 'response_transcript' },
  'response.audio_transcript.done': { kind: 'text_final', channel: 'response_transcript' },
  'response.output_text.delta': { kind: 'text_delta', channel: 'response_text' },
  'response.text.delta': { kind: 'text_delta', channel: 'response_text' },
  'response.output_text.done': { kind: 'text_final', channel: 'response_text' },
  'response.text.done': { kind: 'text_final', channel: 'response_text' },
};

/** vLLM-Omni's resume errors that end a session; any other error code with a response id fails only that response. */
export const FATAL_RESUME_CODES: ReadonlySet<string> = new Set([
  'invalid_session_resume',
  'session_resume_expired',
  'unsupported_session_resume',
  'invalid_resume_token',
  'session_resume_conflict',
]);
/** Errors a duplex client carries on after (vLLM-Omni PR #7457: a superseded playback.ack). */
export const BENIGN_CODES: ReadonlySet<string> = new Set(['playback_ack_too_late']);

const readConversationEvent = audioFrameReader('delta', parseEventObject, (event) => RESPONSE_EVENTS[event.type]?.kind === 'audio');

/**
 * Decodes one conversation event; `outputRate` is the response audio's PCM16 rate when the
 * event does not say. An audio delta's base64, most of every answer's bytes, is measured
 * off the frame's bytes when the frame comes as bytes (`audioFrameReader`), never parsed.
 */
export function interpretConversationEvent(data: string | Buffer, outputRate: number): DecodedEvent {
  const { event, audio } = typeof data === 'string' ? { event: parseEventObject(data), audio: undefined } : readConversationEvent(data);
  const { type } = event;
  const seq = typeof event.server_event_seq === 'number' ? { serverSeq: event.server_event_seq } : {};
  const response = typeof event.response === 'object' && event.response !== null ? (event.response as Record<string, unknown>) : undefined;
  const responseId = stringOf(event.response_id) ?? stringOf(response?.id);
  const ids = { ...(responseId !== undefined ? { responseId } : {}), ...(typeof event.item_id === 'string' ? { itemId: event.item_id } : {}) };
  const mapped = RESPONSE_EVENTS[type];
  if (mapped) {
    if (mapped.kind === 'audio') {
      const bytes = base64Bytes(audio ?? (typeof event.delta === 'string' ? event.delta : ''));
      const rate = typeof event.sample_rate_hz === 'number' && event.sample_rate_hz > 0 ? event.sample_rate_hz : outputRate;
      const cumulative = (event.metadata as { audio_duration_ms?: unknown } | undefined)?.audio_duration_ms;
      return {
        type,
        kind: 'audio',
        ...ids,
        ...seq,
        audioBytes: bytes,
        audioMs: (bytes / 2 / rate) * 1000,
        ...(typeof cumulative === 'number' ? { cumulativeAudioMs: cumulative } : {}),
      };
    }
    const key = mapped.kind === 'text_delta' ? 'delta' : mapped.channel === 'response_transcript' ? 'transcript' : 'text';
    return { type, ...mapped, ...ids, ...seq, ...(mapped.channel ? { text: textField(event, key, type) ?? '' } : {}) };
  }
  switch (type) {
    case 'response.created': {
      const m = (response?.metadata as { duplex_event?: { response_request_metrics?: Record<string, unknown> } } | undefined)?.duplex_event
        ?.response_request_metrics;
      const serverMetrics = m
        ? {
            ...numberOf('ttftMs', m.ttft_ms),
            ...numberOf('ttfpMs', m.ttfp_ms),
            ...(typeof m.measurement_origin === 'string' ? { origin: m.measurement_origin } : {}),
          }
        : undefined;
      return { type, kind: 'response_started', ...ids, ...seq, ...(serverMetrics ? { serverMetrics } : {}) };
    }
    case 'response.listen': // with a response id it ends that response; without, a "still listening" beat
      return { type, kind: responseId !== undefined ? 'response_done' : 'other', ...ids, ...seq };
    case 'response.done': {
      const status = response?.status;
      if (status === 'cancelled') return { type, kind: 'response_cancelled', ...ids, ...seq };
      if (status === 'failed' || status === 'incomplete') {
        const reason = stringOf((response?.status_details as { reason?: unknown } | undefined)?.reason);
        return {
          type,
          kind: 'error',
          scope: 'response',
          ...ids,
          ...seq,
          code: `response_${status}`,
          message: `response ${status}${reason ? `: ${reason}` : ''}`,
        };
      }
      return { type, kind: 'response_done', ...ids, ...seq };
    }
    case 'error': {
      const decoded = { ...openAIEventOf(event), ...ids, ...seq };
      const nested = typeof event.error === 'object' && event.error !== null ? (event.error as Record<string, unknown>) : {};
      const code = decoded.code ?? stringOf(nested.code);
      const fatal = code !== undefined && FATAL_RESUME_CODES.has(code);
      const scope =
        code === COMMIT_EMPTY || code === DUPLEX_COMMIT_EMPTY
          ? 'commit'
          : !fatal && ((code !== undefined && BENIGN_CODES.has(code)) || responseId !== undefined)
            ? 'response'
            : 'session';
      return { ...decoded, ...(code !== undefined ? { code } : {}), scope };
    }
    default:
      return { ...openAIEventOf(event), ...ids, ...seq };
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function numberOf<K extends string>(key: K, value: unknown): { [P in K]?: number } {
  return (typeof value === 'number' && Number.isFinite(value) ? { [key]: value } : {}) as { [P in K]?: number };
}

/** Client frames of both speech-to-speech dialects, by wire type, for `readConversationSent`. */
const SENT_CONTROLS: Record<string, SentReading> = {
  'input_audio_buffer.commit': { kind: 'control', control: 'input_end' },
  'response.create': { kind: 'control', control: 'response_request' },
  'response.cancel': { kind: 'control', control: 'cancel' },
  'session.event_ack': { kind: 'control', control: 'event_ack' },
  'playback.ack': { kind: 'control', control: 'playback_ack' },
  'session.heartbeat': { kind: 'control', control: 'heartbeat' },
  'session.close': { kind: 'control', control: 'session_close' },
};

/**
 * A client's frame in either speech-to-speech dialect, for the proxy: a session update
 * says who ends turns (`turn_detection: null` is the client, GA or flat shape), the
 * rest are the controls the benchmark itself sends.
 */
export function readConversationSent(event: Record<string, unknown> & { type: string }): SentReading {
  if (event.type === 'session.update') {
    const session = objectOf(event.session);
    const input = objectOf(objectOf(session.audio).input);
    const detection = 'turn_detection' in input ? input.turn_detection : session.turn_detection;
    return {
      kind: 'control',
      control: 'session_config',
      ...(detection !== undefined ? { turnDetection: detection === null ? ('client' as const) : ('server' as const) } : {}),
    };
  }
  return SENT_CONTROLS[event.type] ?? { kind: 'other', type: event.type };
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
