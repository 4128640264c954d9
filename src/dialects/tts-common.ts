import { Base64Audio, type AudioPayload } from '../audio/base64-audio.js';
import { readWavHead, timelessFormat } from '../audio/wav-layout.js';
import { ProtocolViolation, type CompletionPolicy, type DecodedEvent, type Verdict } from './dialect.js';
import type { ReceivedFrame } from '../timeline/types.js';

/** What the speech-generation dialects share: the output rate they ask for, audio sizes, and the completion policy. */

/** PCM16 mono at 24 kHz: what each WebSocket TTS dialect asks its server for (Qwen3-TTS's rate, OpenAI's `pcm`, ElevenLabs `pcm_24000`). */
export const TTS_RATE = 24_000;

/** A PCM rate a client named, if it is one (an integer from 8 to 192 kHz). */
export function pcmRate(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 8_000 && value <= 192_000 ? value : undefined;
}

/** Decoded bytes of base64 audio, from its length alone (the payload is never decoded on the hot path). */
export function base64Bytes(b64: string | Base64Audio): number {
  if (b64 instanceof Base64Audio) return b64.decodedBytes;
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((b64.length * 3) / 4) - padding);
}

/**
 * An audio event for `bytes` of PCM16 mono at `rate`, its payload kept undecoded; an
 * empty payload is no audio (`other`), so it never counts as first audio.
 */
export function audioEvent(type: string, bytes: number, payload: AudioPayload, rate = TTS_RATE): DecodedEvent {
  if (bytes === 0) return { type, kind: 'other' };
  return { type, kind: 'audio', audioBytes: bytes, audioMs: (bytes / 2 / rate) * 1000, payload };
}

/**
 * Where the audio of a received WAV file (`bytes` from 'RIFF') starts, with its rate and
 * channels; undefined until the header reaches 'data' (`whole`: the file is complete, so
 * it has none). A format whose audio has no duration (rate or channels 0) is a protocol
 * violation: no figure can be made of it.
 */
export function wavAudioStart(bytes: Buffer, whole: boolean): { offset: number; format?: { rate: number; channels: number } } | undefined {
  const head = readWavHead(bytes, whole);
  if (!head?.format) return head && { offset: head.dataOffset };
  const timeless = timelessFormat(head.format);
  if (timeless) throw new ProtocolViolation(`${timeless}: its audio has no duration`);
  return { offset: head.dataOffset, format: { rate: head.format.rate, channels: head.format.channels } };
}

/** A speech-generation dialect has no audio input; preparing audio for one is a programming error. */
export function noAudioInput(name: string): () => never {
  return () => {
    throw new Error(`${name} generates speech from text; it sends no audio`);
  };
}

/**
 * Completion for speech generation: input N is done at the N-th end-of-response event
 * (`response_done`) after its end of input (or its HTTP request) was sent; a done that nothing asked for
 * answers no input. Every error ends the session. `readyAtOpen`: the server sends no
 * greeting, so the session is ready once the socket is open.
 */
export function speechPolicy(readyAtOpen: boolean): CompletionPolicy {
  let ready = readyAtOpen;
  let asked = 0;
  let done = 0;
  return {
    get ready() {
      return ready;
    },
    controlSent: (frame) => {
      // Over WebSocket the end of input asks for the speech; over HTTP the request does.
      if (frame.control === 'input_end' || frame.control === 'request') asked++;
    },
    observe(event: ReceivedFrame): Verdict {
      if (event.kind === 'ready') ready = true;
      else if (event.kind === 'response_done' && done < asked) done++;
      else if (event.kind === 'error') {
        return {
          end: {
            class: 'server_error',
            ...(event.code ? { code: event.code } : {}),
            message: `server error${event.code ? ` ${event.code}` : ''}: ${event.message ?? ''}`.trim(),
          },
        };
      }
      return undefined;
    },
    inputDone: (index) => done > index,
    speaking: () => false,
    settled: () => asked === done,
    allFinal: (inputs) => done >= inputs,
  };
}

/** The target with the dialect's standard path when it names none (`ws://host:port` or `.../`). */
export function withDefaultPath(target: string, path: string): URL {
  const url = new URL(target);
  if (url.pathname === '/' || url.pathname === '') url.pathname = path;
  return url;
}

export function stringField(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export interface SpeechWsSettings {
  model: string;
  /** The server's voice (vLLM-Omni `voice`, ElevenLabs voice id, OpenAI Realtime voice); the server's default when unset. */
  voice?: string;
  language?: string;
  /** PCM16 rate the server speaks at (`--output-rate`): the model's (24 kHz Qwen3-TTS, 44.1 kHz Fish S2). Default 24000. */
  outputRate?: number;
}
