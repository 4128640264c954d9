import type { WebSocketDialect } from '../dialects/dialect.js';
import type { TextSample } from '../data/dataset.js';

/**
 * How a prompt's text reaches the server: all at once (as from a script), or streamed
 * like an LLM's output, one token (a word with the whitespace after it) every
 * `1000 / tokensPerS` ms after a first token at `firstTokenMs`.
 */
export type TextDelivery = { kind: 'all' } | { kind: 'stream'; tokensPerS: number; firstTokenMs: number };

/** One piece of a prompt, already framed: due `atMs` into the input (at `--pace` speed). */
export interface PreparedTextChunk {
  frame: Buffer;
  atMs: number;
  /** The code points of the prompt it carries, [start, end). */
  charStart: number;
  charEnd: number;
}

/** A prompt framed as the dialect sends it, before the clock starts. */
export interface PreparedText {
  kind: 'text';
  sampleId: string;
  split: string;
  text: string;
  /** Code points of `text`. */
  chars: number;
  chunks: PreparedTextChunk[];
  /** Streamed on its schedule; else every chunk is sent at once. */
  streamed: boolean;
}

/** Frames a prompt for a text-in dialect, as one piece or as a token stream. */
export function prepareText(sample: TextSample, dialect: Pick<WebSocketDialect, 'name' | 'textFrame'>, delivery: TextDelivery): PreparedText {
  const textFrame = dialect.textFrame;
  if (!textFrame) throw new Error(`${dialect.name} sends audio, not text`);
  const pieces = delivery.kind === 'all' ? [sample.text] : tokens(sample.text);
  const chunks: PreparedTextChunk[] = [];
  let charEnd = 0;
  for (const [i, piece] of pieces.entries()) {
    const charStart = charEnd;
    charEnd += [...piece].length;
    const atMs = delivery.kind === 'all' ? 0 : delivery.firstTokenMs + (i * 1000) / delivery.tokensPerS;
    chunks.push({ frame: Buffer.from(textFrame(piece)), atMs, charStart, charEnd });
  }
  return { kind: 'text', sampleId: sample.id, split: sample.split, text: sample.text, chars: charEnd, chunks, streamed: delivery.kind === 'stream' };
}

/** Words with the whitespace that follows them (leading whitespace stays with the first), as an LLM streams tokens. */
export function tokens(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [];
  return words.length > 0 ? words : [text];
}
