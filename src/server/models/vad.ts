import { DEFAULT_SPEECH_RMS, FRAME_MS, pcm16Rms } from '../../audio/energy.js';

export interface VadSettings {
  /** 0 to 1, as OpenAI's `threshold`; 0.5 maps to the default speech energy (about -40 dBFS). */
  threshold: number;
  /** Audio reported before the detected start of speech, ms. */
  prefixPaddingMs: number;
  /** Silence that ends speech, ms. */
  silenceDurationMs: number;
}

/** A stop's `atMs` is where the VAD decided it (the end of speech plus the silence that ended it): audio after it is the next buffer's. */
export type VadEvent = { type: 'started'; audioStartMs: number } | { type: 'stopped'; audioEndMs: number; atMs: number };

/**
 * Server-side voice activity detection over a stream of PCM16: speech starts at the
 * first speech-energy frame and stops after `silenceDurationMs` without one.
 * Positions are ms from the start of the session's audio (`startMs` where the VAD was
 * turned on later), as a real server's `audio_start_ms` / `audio_end_ms` are.
 */
export class StreamingVad {
  private carry: Buffer = Buffer.alloc(0);
  private position = 0;
  private speaking = false;
  private lastSpeechEnd = 0;
  private readonly frameBytes: number;
  private rmsThreshold = 0;

  constructor(
    sampleRate: number,
    private settings: VadSettings,
    startMs = 0,
  ) {
    this.frameBytes = Math.round((sampleRate * FRAME_MS) / 1000) * 2;
    this.position = this.lastSpeechEnd = startMs;
    this.retune(settings);
  }

  /** New settings for the audio that follows; the clock and any speech in progress are kept. */
  retune(settings: VadSettings): void {
    this.settings = settings;
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
        events.push({ type: 'stopped', audioEndMs: this.lastSpeechEnd, atMs: this.position });
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

/**
 * The VAD after a session update: the one listening is retuned, its clock and any speech
 * in progress kept (a real server's update does not restart its input audio buffer's
 * clock); one turned on starts at the session's audio position `positionMs`.
 */
export function tunedVad(vad: StreamingVad | undefined, sampleRate: number, settings: VadSettings, positionMs: number): StreamingVad {
  if (!vad) return new StreamingVad(sampleRate, settings, positionMs);
  vad.retune(settings);
  return vad;
}

/** Silence that ends a turn for each `semantic_vad` eagerness. */
export const SEMANTIC_SILENCE_MS = { low: 1000, medium: 600, auto: 500, high: 250 } as const;
