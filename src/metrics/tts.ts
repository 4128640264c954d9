import type { InputView } from '../views/session-view.js';
import { anchor } from './anchors.js';

/**
 * What the speech-generation figures read of an input's view: its anchors (the first
 * text sent, the send that forced synthesis, the first frame and the first audio after
 * them, the simulated player's start) and its audio. The catalog's entries are these
 * anchors and functions; nothing here is computed on the hot path.
 */
/** Speech-generation anchors exist on text inputs only, so no speech figure is measured on a transcription. */
const isText = (v: InputView): boolean => v.plan?.kind === 'text';
const firstSent = (v: InputView): number | undefined => (isText(v) ? (v.media[0]?.t ?? v.request?.startMs) : undefined);
const lastAudio = (v: InputView): number | undefined => v.audio.chunks[v.audio.chunks.length - 1]?.t;

export const TTS_ANCHORS = {
  text_first_sent: anchor<InputView>('text.first_sent', 'first piece of the text sent (HTTP: the request)', firstSent),
  text_first_streamed: anchor<InputView>('text.first_streamed', 'first token of a text streamed on a token schedule (--text-rate)', (v) =>
    typeof v.media[0]?.plannedMs === 'number' && v.media[0].kind === 'text' ? v.media[0].t : undefined,
  ),
  text_submitted: anchor<InputView>('text.submitted', 'the send that forces synthesis: end of input, flush or response.create (HTTP: the request)', (v) =>
    isText(v) ? (v.endControl?.t ?? v.request?.startMs) : undefined,
  ),
  first_frame: anchor<InputView>('response.first_frame', 'first frame of any kind received after the text was first sent', (v) => {
    const from = firstSent(v);
    return from === undefined ? undefined : v.received.find((e) => e.t >= from)?.t;
  }),
  first_audio: anchor<InputView>(
    'audio.first',
    'first frame carrying audio samples (WAV headers, empty deltas and announcements never count)',
    (v) => v.audio.chunks[0]?.t,
  ),
  last_audio: anchor<InputView>('audio.last', 'last frame carrying audio samples', lastAudio),
  speech_end: anchor<InputView>('speech.end', 'the later of the last audio and the end of the response (done event, or the end of the body)', (v) => {
    const ends = [lastAudio(v), ...v.responses.map((r) => r.done?.t)].filter((t): t is number => t !== undefined);
    return ends.length > 0 ? Math.max(...ends) : undefined;
  }),
  playback_start: anchor<InputView>(
    'playback.start',
    'first sample played by the simulated player (once the playback buffer is full)',
    (v) => v.playback().startMs,
  ),
};

/** Gaps between consecutive audio chunks, ms. */
export function chunkGaps(v: InputView): number[] {
  const { chunks } = v.audio;
  return chunks.slice(1).map((c, i) => c.t - chunks[i]!.t);
}

/** Characters of the input's text, for a text input. */
export function charsOf(v: InputView): number | undefined {
  return v.plan?.kind === 'text' ? v.plan.chars : undefined;
}

/** Generated audio, ms; undefined when none arrived. */
export function audioOutMs(v: InputView): number | undefined {
  return v.audio.chunks.length > 0 ? v.audio.totalMs : undefined;
}
