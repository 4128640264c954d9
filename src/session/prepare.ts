import type { ProtocolAdapter } from '../adapters/adapter.js';
import { pcm16DurationMs } from '../audio/pcm.js';

/** One audio chunk, already framed and encoded: the hot path only hands `frame` to the socket. */
export interface PreparedChunk {
  frame: Buffer;
  audioStartMs: number;
  audioEndMs: number;
}

export interface PreparedTurn {
  chunks: PreparedChunk[];
  audioMs: number;
}

/**
 * Splits a turn's PCM16 audio into `chunkMs` chunks (the last may be shorter) and
 * encodes each as the adapter's audio frame. Runs before the clock starts.
 */
export function prepareTurn(pcm16: Buffer, sampleRate: number, chunkMs: number, adapter: ProtocolAdapter): PreparedTurn {
  const chunkBytes = Math.max(2, Math.round((sampleRate * chunkMs) / 1000) * 2);
  const chunks: PreparedChunk[] = [];
  for (let offset = 0; offset < pcm16.length; offset += chunkBytes) {
    const end = Math.min(offset + chunkBytes, pcm16.length);
    chunks.push({
      frame: Buffer.from(adapter.audioFrame(pcm16.subarray(offset, end))),
      audioStartMs: pcm16DurationMs(offset, sampleRate),
      audioEndMs: pcm16DurationMs(end, sampleRate),
    });
  }
  return { chunks, audioMs: pcm16DurationMs(pcm16.length, sampleRate) };
}
