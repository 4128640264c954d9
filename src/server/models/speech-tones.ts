/**
 * The simulated voice's code: each character of a word is one pure tone, so the
 * simulated transcription server can read back what the simulated speech server said,
 * with no network and whatever the two sample rates (a tone survives resampling).
 *
 * Tones sit 100 Hz apart from 350 Hz, so over a 10 ms frame they are orthogonal and
 * one frame names its tone. Letters a-z, digits and the apostrophe have a tone each;
 * any other letter or digit is ESCAPE then its code point in six hex digits; a
 * character equal to the one before is REPEAT, so neighbouring tones always differ
 * and a run of frames of one tone is one character, however long the voice holds it.
 * Each word opens with START.
 */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789'";
const ESCAPE = ALPHABET.length;
const REPEAT = ESCAPE + 1;
/** Every word opens with it, so a steady tone that happens to sit on a character's frequency is not read as a word. */
const START = REPEAT + 1;
export const TONE_COUNT = START + 1;
const BASE_HZ = 350;
const STEP_HZ = 100;
/** Analysis frame: the inverse of the tone spacing. */
export const TONE_FRAME_MS = 10;
/** A frame holding this share of its energy in one tone is that tone (a frame across two tones holds about half). */
const PURE = 0.8;
/** Hex digits of an escaped code point. */
const ESCAPE_DIGITS = 6;

export function toneHz(tone: number): number {
  return BASE_HZ + STEP_HZ * tone;
}

/** The tones that spell one word (lower case, as `normalizeWords` gives it). */
export function wordTones(word: string): number[] {
  const plain = [...word].flatMap((char) => {
    const index = ALPHABET.indexOf(char);
    if (index >= 0) return [index];
    return [ESCAPE, ...[...char.codePointAt(0)!.toString(16).padStart(ESCAPE_DIGITS, '0')].map((d) => ALPHABET.indexOf(d))];
  });
  const tones = [START];
  for (let i = 0; i < plain.length; i++) tones.push(i > 0 && plain[i] === plain[i - 1] && tones[i] !== REPEAT ? REPEAT : plain[i]!);
  return tones;
}

/** The word a tone sequence spells, or undefined when it spells none (a broken escape). */
export function tonesWord(tones: readonly number[]): string | undefined {
  if (tones[0] !== START || tones.length < 2 || tones[1] === REPEAT) return undefined;
  const plain: number[] = [];
  for (const tone of tones.slice(1)) plain.push(tone === REPEAT ? plain[plain.length - 1]! : tone);
  let word = '';
  for (let i = 0; i < plain.length; i++) {
    if (plain[i] !== ESCAPE) {
      word += ALPHABET[plain[i]!];
      continue;
    }
    const digits = plain.slice(i + 1, i + 1 + ESCAPE_DIGITS).map((t) => ALPHABET[t] ?? '');
    const code = Number.parseInt(digits.join(''), 16);
    if (digits.length < ESCAPE_DIGITS || !/^[0-9a-f]+$/.test(digits.join('')) || code > 0x10ffff) return undefined;
    word += String.fromCodePoint(code);
    i += ESCAPE_DIGITS;
  }
  return word;
}

/** Per sample rate: each tone's cosine and sine over one analysis frame. */
const bases = new Map<number, Array<[Float64Array, Float64Array]>>();

function basesAt(sampleRate: number): Array<[Float64Array, Float64Array]> {
  let b = bases.get(sampleRate);
  if (!b) {
    const n = Math.round((sampleRate * TONE_FRAME_MS) / 1000);
    b = Array.from({ length: TONE_COUNT }, (_, tone) => {
      const w = (2 * Math.PI * toneHz(tone)) / sampleRate;
      return [Float64Array.from({ length: n }, (_, i) => Math.cos(w * i)), Float64Array.from({ length: n }, (_, i) => Math.sin(w * i))];
    });
    bases.set(sampleRate, b);
  }
  return b;
}

/** Samples in one analysis frame at `sampleRate`. */
export function toneFrameSamples(sampleRate: number): number {
  return Math.round((sampleRate * TONE_FRAME_MS) / 1000);
}

/** The tone one frame of PCM16 (at byte `offset`) holds, or undefined when it is silent or not one pure tone. */
export function frameTone(pcm: Buffer, offset: number, sampleRate: number, minRms: number): number | undefined {
  const b = basesAt(sampleRate);
  const n = b[0]![0].length;
  const x = new Float64Array(n);
  let energy = 0;
  for (let i = 0; i < n; i++) {
    x[i] = pcm.readInt16LE(offset + i * 2) / 32768;
    energy += x[i]! * x[i]!;
  }
  if (Math.sqrt(energy / n) < minRms) return undefined;
  let best = -1;
  let bestPower = 0;
  for (let tone = 0; tone < TONE_COUNT; tone++) {
    const [cos, sin] = b[tone]!;
    let c = 0;
    let s = 0;
    for (let i = 0; i < n; i++) {
      c += x[i]! * cos[i]!;
      s += x[i]! * sin[i]!;
    }
    const power = c * c + s * s;
    if (power > bestPower) {
      bestPower = power;
      best = tone;
    }
  }
  return (2 * bestPower) / (n * energy) >= PURE ? best : undefined;
}

/**
 * Reads one word of the simulated voice frame by frame as it arrives (one voiced run of
 * the recognizer's energy detector): each new pure tone is a character.
 */
export class ToneWord {
  private readonly tones: number[] = [];
  private frames = 0;
  private pure = 0;

  constructor(
    private readonly sampleRate: number,
    private readonly minRms: number,
  ) {}

  /** Adds `samples` samples at byte `offset`, analysed in whole frames (a remainder is dropped: it sits at a tone edge at most). */
  add(pcm: Buffer, offset: number, samples: number): void {
    const n = toneFrameSamples(this.sampleRate);
    for (let i = 0; i + n <= samples; i += n) {
      const tone = frameTone(pcm, offset + i * 2, this.sampleRate, this.minRms);
      this.frames++;
      if (tone === undefined) continue;
      this.pure++;
      if (tone !== this.tones[this.tones.length - 1]) this.tones.push(tone);
    }
  }

  /** Whether the first pure tone heard so far opens a word. */
  get opened(): boolean {
    return this.tones[0] === START;
  }

  /** The word heard, or undefined when the audio was not the simulated voice after all. */
  word(): string | undefined {
    return this.pure * 2 >= this.frames ? tonesWord(this.tones) : undefined;
  }
}
