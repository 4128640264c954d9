import { parseEventObject, type InterpretedEvent, type ProtocolAdapter } from './adapter.js';

/**
 * vLLM `/v1/realtime` (Voxtral realtime, Qwen3-ASR realtime).
 *
 * connect → `session.created` → `session.update {model}` → `input_audio_buffer.commit`
 * (non-final: starts generation) → `input_audio_buffer.append`* (base64 PCM16, 16 kHz)
 * → `input_audio_buffer.commit {final: true}` → `transcription.delta`* → `transcription.done`.
 * Errors are flat: `{type: "error", error: "<message>", code}`.
 */
const SAMPLE_RATE = 16_000;

export function vllmAdapter(settings: { model: string }): ProtocolAdapter {
  const sessionUpdate = JSON.stringify({ type: 'session.update', model: settings.model });
  const commit = JSON.stringify({ type: 'input_audio_buffer.commit' });
  const finalCommit = JSON.stringify({ type: 'input_audio_buffer.commit', final: true });
  return {
    name: 'vllm',
    sampleRate: SAMPLE_RATE,
    turnDetection: 'client',
    readyKind: 'session_created',
    connectUrl: (target) => target,
    upgradeHeaders: () => ({}),
    sessionFrames: () => [sessionUpdate],
    sessionUpdateFrame: () => sessionUpdate,
    turnStartFrame: () => commit,
    audioFrame: (pcm16) => `{"type":"input_audio_buffer.append","audio":"${pcm16.toString('base64')}"}`,
    turnEndFrame: () => finalCommit,
    interpret: interpretVllmEvent,
  };
}

export function interpretVllmEvent(data: string): InterpretedEvent {
  const event = parseEventObject(data);
  const { type } = event;
  switch (type) {
    case 'session.created':
      return { type, kind: 'session_created' };
    case 'session.updated':
      return { type, kind: 'session_updated' };
    case 'transcription.delta':
      return { type, kind: 'transcript_delta', text: stringField(event.delta) };
    case 'transcription.done':
      return { type, kind: 'transcript_final', text: stringField(event.text) };
    case 'progress': // seed 001's consumption acknowledgement: cumulative PCM16 bytes at 16 kHz
      return typeof event.audio_bytes === 'number' ? { type, kind: 'progress', audioEndMs: (event.audio_bytes / 2 / SAMPLE_RATE) * 1000 } : { type, kind: 'other' };
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

function stringField(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
