import type { HttpDialect } from '../dialect.js';
import { speechDialect, type SpeechSettings } from '../speech-http.js';

/**
 * vLLM-Omni's `POST /v1/audio/speech`, in its three modes: one body (no streaming
 * fields), a raw stream (`stream_format: "audio"`: PCM, or WAV behind a 44-byte
 * header) and server-sent events (`stream_format: "sse"`). A streaming request always
 * names its `stream_format` and sets `stream: true`: the newest servers read
 * `stream_format`, older ones answer `stream: true` with raw bytes whatever it says,
 * and the body is decoded by its Content-Type, so both work.
 */
export function vllmOmniSpeechDialect(settings: SpeechSettings): HttpDialect {
  return speechDialect('vllm-omni-speech', settings, (input) => ({
    ...(settings.streamFormat !== 'none' ? { stream: true, stream_format: settings.streamFormat } : {}),
    ...((input.language ?? settings.language) !== undefined ? { language: input.language ?? settings.language } : {}),
  }));
}
