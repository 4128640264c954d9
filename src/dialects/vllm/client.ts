import { jsonSentReader, jsonTextDecoder, parseEventObject, textField, type DecodedEvent, type SentReading, type WebSocketDialect } from '../dialect.js';
import { transcriptionPolicy } from '../stt-policy.js';
import { stringField } from '../tts-common.js';

/**
 * vLLM `/v1/realtime` (Voxtral realtime, Qwen3-ASR realtime).
 *
 * connect → `session.created` → `session.update {model}` → `input_audio_buffer.commit`
 * (non-final: starts generation) → `input_audio_buffer.append`* (base64 PCM16, 16 kHz)
 * → `input_audio_buffer.commit {final: true}` → `transcription.delta`* → `transcription.done`.
 * Errors are flat: `{type: "error", error: "<message>", code}`.
 */
const SAMPLE_RATE = 16_000;

export function vllmDialect(settings: { model: string }): WebSocketDialect {
  const sessionUpdate = JSON.stringify({ type: 'session.update', model: settings.model });
  const commit = JSON.stringify({ type: 'input_audio_buffer.commit' });
  const finalCommit = JSON.stringify({ type: 'input_audio_buffer.commit', final: true });
  return {
    name: 'vllm',
    task: 'stt',
    transport: 'websocket',
    sampleRate: SAMPLE_RATE,
    turnDetection: 'client',
    readyEvent: 'session.created',
    policy: () => transcriptionPolicy('client'),
    connectUrl: (target) => target,
    upgradeHeaders: () => ({}),
    sessionFrames: () => [sessionUpdate],
    sessionUpdateFrame: () => sessionUpdate,
    inputStartFrame: () => commit,
    audioFrame: (pcm16) => `{"type":"input_audio_buffer.append","audio":"${pcm16.toString('base64')}"}`,
    inputEndFrame: () => finalCommit,
    flushFrame: () => finalCommit,
    decode: jsonTextDecoder('vllm', interpretVllmEvent),
    readSent: jsonSentReader(readVllmSent),
  };
}

/** A client's frame: a non-final commit opens an input, a final one ends it. */
function readVllmSent(event: Record<string, unknown> & { type: string }): SentReading {
  switch (event.type) {
    case 'session.update':
      return { kind: 'control', control: 'session_config', turnDetection: 'client', ...(typeof event.model === 'string' ? { model: event.model } : {}) };
    case 'input_audio_buffer.commit':
      return { kind: 'control', control: event.final === true ? 'input_end' : 'input_start' };
    default:
      return { kind: 'other', type: event.type };
  }
}

export function interpretVllmEvent(data: string): DecodedEvent {
  const event = parseEventObject(data);
  const { type } = event;
  switch (type) {
    case 'session.created':
      return { type, kind: 'ready' };
    case 'session.updated':
      return { type, kind: 'updated' };
    case 'transcription.delta':
      return { type, kind: 'text_delta', channel: 'input_transcript', text: textField(event, 'delta', type) ?? '' };
    case 'transcription.done':
      return { type, kind: 'text_final', channel: 'input_transcript', text: textField(event, 'text', type) ?? '' };
    case 'progress': // seed 001's consumption acknowledgement: cumulative PCM16 bytes at 16 kHz
      return typeof event.audio_bytes === 'number'
        ? { type, kind: 'progress', audioEndMs: (event.audio_bytes / 2 / SAMPLE_RATE) * 1000 }
        : { type, kind: 'other' };
    case 'error': {
      const nested = typeof event.error === 'object' && event.error !== null ? (event.error as Record<string, unknown>) : undefined;
      const message = nested ? stringField(nested.message) : stringField(event.error);
      const code = nested ? nested.code : event.code;
      return { type, kind: 'error', message, ...(typeof code === 'string' ? { code } : {}) };
    }
    default:
      return { type, kind: 'other' };
  }
}
