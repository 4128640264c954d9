import { DEFAULT_SPEECH_RMS, FRAME_MS, pcm16Rms } from '../../audio/energy.js';

export interface VadSettings {
  /** 0 to 1, as OpenAI's `threshold`; 0.5 maps to the default speech energy (about -40 dBFS). */
  threshold: number;
  /** Audio reported before the detected start of speech, ms. */
  prefixPaddingMs: number;
  /** Silence that ends speech, ms. */
  silenceDurationMs: number;
}

export type VadEvent = { type: 'started'; audioStartMs: number } | { type: 'stopped'; audioEndMs: number };

/**
 * Server-side voice activity detection over a stream of PCM16: speech starts at the
 * first speech-energy frame and stops after `silenceDurationMs` without one.
 * Positions are ms from the start of the stream.
 */
export class StreamingVad {
  private carry: Buffer = Buffer.alloc(0);
  private position = 0;
  private speaking = false;
  private lastSpeechEnd = 0;
  private readonly frameBytes: number;
  private readonly rmsThreshold: number;

  constructor(
    sampleRate: number,
    private readonly settings: VadSettings,
  ) {
    this.frameBytes = Math.round((sampleRate * FRAME_MS) / 1000) * 2;
    this.rmsThreshold = DEFAULT_SPEECH_RMS * 2 * settings.threshold;
  }

  get inSpeech(): boolean {
    return this.speaking;
  }

  feed(pcm: Buffer): VadEvent[] {
    const audio = this.carry.length > 0 ? Buffer.concat([this.carry, pcm]) : pcm;
    const events: VadEvent[] = [];
    let offset = 0;
    for (; offset + this.frameBytes <= audio.length; offset += this.frameBytes) {
      const start = this.position;
      this.position += FRAME_MS;
      if (pcm16Rms(audio, offset, this.frameBytes / 2) >= this.rmsThreshold) {
        if (!this.speaking) {
          this.speaking = true;
          events.push({ type: 'started', audioStartMs: Math.max(0, start - this.settings.prefixPaddingMs) });
        }
        this.lastSpeechEnd = this.position;
      } else if (this.speaking && this.position - this.lastSpeechEnd >= this.settings.silenceDurationMs) {
        this.speaking = false;
        events.push({ type: 'stopped', audioEndMs: this.lastSpeechEnd });
      }
    }
    this.carry = audio.subarray(offset);
    return events;
  }

  /** Ends speech in progress (a manual commit during speech). */
  reset(): void {
    this.speaking = false;
  }
}

/** Silence that ends a turn for each `semantic_vad` eagerness. */
export const SEMANTIC_SILENCE_MS = { low: 1000, medium: 600, auto: 500, high: 250 } as const;
