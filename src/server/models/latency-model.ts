import { seededRandom } from '../../util/random.js';

/**
 * How fast the simulated server answers. Text for a piece of audio is emitted
 * `delay()` ms after that audio arrives; the delay grows quadratically once more
 * sessions are open than `capacity`, so a concurrency sweep shows a knee.
 */
export interface LatencyModelOptions {
  /** Fixed processing delay per emission, ms. Default 120. */
  baseDelayMs: number;
  /** Uniform jitter added to each delay, +/- ms. Default 30. */
  jitterMs: number;
  /** Compute per emitted word, ms. Default 10. */
  perWordMs: number;
  /** Extra time to flush after the final commit, ms. Default 60. */
  finalizeMs: number;
  /** Speech to speech: time to generate each ms of answer audio, ms (below 1 runs ahead of playback). Default 0.5. */
  generationRtf?: number;
  /** Sessions served at full speed; beyond it every delay is scaled by (open/capacity)^2. Default 16. */
  capacity: number;
  /** Seed of the jitter generator. Default 1. */
  seed: number;
  /** Batch transcription: a request's audio is processed this many times faster than real time (after the base delay). Default 50. */
  batchSpeed?: number;
}

export const DEFAULT_GENERATION_RTF = 0.5;

export const DEFAULT_LATENCY: LatencyModelOptions = {
  baseDelayMs: 120,
  jitterMs: 30,
  perWordMs: 10,
  finalizeMs: 60,
  generationRtf: DEFAULT_GENERATION_RTF,
  capacity: 16,
  seed: 1,
  batchSpeed: 50,
};

/** How much slower a server with `capacity` works with `openSessions` open: 1 up to capacity, then (open/capacity)^2. */
export function kneeSlowdown(openSessions: number, capacity: number): number {
  return openSessions <= capacity ? 1 : (openSessions / capacity) ** 2;
}

export class LatencyModel {
  private readonly random: () => number;

  constructor(readonly options: LatencyModelOptions) {
    this.random = seededRandom(options.seed);
  }

  slowdown(openSessions: number): number {
    return kneeSlowdown(openSessions, this.options.capacity);
  }

  /** Delay before text for newly heard audio is emitted. */
  delay(openSessions: number): number {
    const { baseDelayMs, jitterMs, perWordMs } = this.options;
    const jitter = (this.random() * 2 - 1) * jitterMs;
    return Math.max(0, baseDelayMs + perWordMs + jitter) * this.slowdown(openSessions);
  }

  /** Batch transcription: time to process a whole recording of `audioMs`, proportional to its length. */
  batch(audioMs: number, openSessions: number): number {
    const { baseDelayMs, jitterMs, batchSpeed = DEFAULT_LATENCY.batchSpeed! } = this.options;
    const jitter = (this.random() * 2 - 1) * jitterMs;
    return Math.max(0, baseDelayMs + jitter + audioMs / batchSpeed) * this.slowdown(openSessions);
  }

  /** Time to generate `audioMs` of answer audio. */
  generation(audioMs: number, openSessions: number): number {
    return audioMs * (this.options.generationRtf ?? DEFAULT_GENERATION_RTF) * this.slowdown(openSessions);
  }

  /** Delay between the final commit and the final transcript. */
  finalize(openSessions: number): number {
    return this.options.finalizeMs * this.slowdown(openSessions);
  }
}
