/**
 * A simulated player: it starts once `bufferMs` of audio has arrived (or the stream has
 * ended), then plays in real time; whenever the audio runs out before the next chunk
 * arrives, playback stalls until it does. This is what a listener hears of a stream.
 */
export interface Playback {
  /** When playback starts; undefined for a stream with no audio. */
  startMs?: number;
  /** Each stall: when the audio ran out, and for how long. */
  stalls: Array<{ t: number; ms: number }>;
  stallMs: number;
  /** When the last audio has played. */
  endMs?: number;
}

/** Audio a simulated player buffers before it starts, unless the run says otherwise (`--playback-buffer-ms`). */
export const DEFAULT_PLAYBACK_BUFFER_MS = 200;

export function playback(chunks: ReadonlyArray<{ t: number; ms: number }>, bufferMs: number): Playback {
  if (chunks.length === 0) return { stalls: [], stallMs: 0 };
  let buffered = 0;
  let first = chunks.length - 1;
  for (let i = 0; i < chunks.length; i++) {
    buffered += chunks[i]!.ms;
    if (buffered >= bufferMs) {
      first = i;
      break;
    }
  }
  const startMs = chunks[first]!.t;
  const stalls: Playback['stalls'] = [];
  /** When the audio received so far has played out. */
  let runsOutMs = startMs;
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!;
    if (i > first && chunk.t > runsOutMs) {
      stalls.push({ t: runsOutMs, ms: chunk.t - runsOutMs });
      runsOutMs = chunk.t;
    }
    runsOutMs += chunk.ms;
  }
  return { startMs, stalls, stallMs: stalls.reduce((sum, s) => sum + s.ms, 0), endMs: runsOutMs };
}
