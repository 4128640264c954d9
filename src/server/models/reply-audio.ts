/**
 * Speech-like audio for the simulated agent's answers, deterministic and cheap: each
 * word is a voiced sound (a fundamental with two harmonics, its pitch drawn from the
 * word, under a syllable envelope) followed by a short pause, so that the audio has
 * speech energy where words are and silence between them, and the same text always
 * gives the same samples.
 */
export interface ReplyAudio {
  pcm: Buffer;
  /** Where each word ends, ms into the audio. */
  words: Array<{ text: string; endMs: number }>;
}

const MS_PER_CHAR = 55;
const WORD_MIN_MS = 160;
const WORD_MAX_MS = 520;
const PAUSE_MS = 70;
/** Peak amplitude, about -12 dBFS: well above the speech-energy threshold. */
const AMPLITUDE = 0.25 * 32767;

export function replyAudio(text: string, sampleRate: number): ReplyAudio {
  const tokens = text.split(/\s+/).filter(Boolean);
  const spans = tokens.map((word) => Math.min(WORD_MAX_MS, Math.max(WORD_MIN_MS, word.length * MS_PER_CHAR)));
  const totalMs = spans.reduce((sum, ms) => sum + ms + PAUSE_MS, 0);
  const pcm = Buffer.alloc(Math.round((totalMs * sampleRate) / 1000) * 2);
  const words: ReplyAudio['words'] = [];
  let atMs = 0;
  tokens.forEach((word, w) => {
    const ms = spans[w]!;
    const pitch = 110 + (hash(word) % 90);
    const first = Math.round((atMs * sampleRate) / 1000);
    const count = Math.round((ms * sampleRate) / 1000);
    for (let i = 0; i < count; i++) {
      const t = i / sampleRate;
      const envelope = Math.sin((Math.PI * i) / count);
      const phase = 2 * Math.PI * pitch * t;
      const s = envelope * (0.6 * Math.sin(phase) + 0.3 * Math.sin(2 * phase) + 0.1 * Math.sin(3 * phase));
      pcm.writeInt16LE(Math.round(s * AMPLITUDE), (first + i) * 2);
    }
    atMs += ms;
    words.push({ text: word, endMs: atMs });
    atMs += PAUSE_MS;
  });
  return { pcm, words };
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
