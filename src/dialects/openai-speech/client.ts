import type { HttpDialect } from '../dialect.js';
import { speechDialect, type SpeechSettings } from '../speech-http.js';

export const DEFAULT_OPENAI_VOICE = 'alloy';

/**
 * OpenAI's `POST /v1/audio/speech`: the audio as a raw body (`stream_format: "audio"`,
 * `pcm` 24 kHz 16-bit mono, or `wav`) or as server-sent events (`stream_format: "sse"`,
 * not on tts-1). OpenAI has no separate one-body mode: `--stream-format none` asks
 * for the raw stream and measures it as one body (task `batch_tts`). The voice is
 * required (default `alloy`).
 */
export function openaiSpeechDialect(settings: SpeechSettings): HttpDialect {
  return speechDialect('openai-speech', { ...settings, voice: settings.voice ?? DEFAULT_OPENAI_VOICE }, () => ({
    stream_format: settings.streamFormat === 'sse' ? 'sse' : 'audio',
  }));
}
