import type { MonoAudio } from './decode.js';

/**
 * Band-limited rational resampling: a polyphase Kaiser-windowed sinc, one phase per
 * output position between input samples. Done once per sample before any clock
 * starts, never per chunk. The output has exactly round(n · to / from) samples, and
 * each phase's taps sum to 1, so silence stays silence and DC passes unchanged.
 */
export async function resample(audio: MonoAudio, targetRate: number): Promise<MonoAudio> {
  if (audio.sampleRate === targetRate) return audio;
  return { samples: resampleSamples(audio.samples, audio.sampleRate, targetRate), sampleRate: targetRate };
}

/** Zero crossings of the sinc on each side of the centre, at the lower of the two rates. */
const ZERO_CROSSINGS = 12;
/** Passband edge as a fraction of the lower Nyquist frequency (speech has little energy near it). */
const ROLLOFF = 0.95;
/** Kaiser window shape: about 95 dB of stopband attenuation. */
const KAISER_BETA = 10;
/** Names the filter; the prepared-audio cache keys entries by it, so a changed filter prepares again. */
export const RESAMPLER = `polyphase Kaiser sinc, ${ZERO_CROSSINGS} zero crossings, rolloff ${ROLLOFF}, beta ${KAISER_BETA}`;

export function resampleSamples(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  const g = gcd(fromRate, toRate);
  const up = toRate / g;
  const down = fromRate / g;
  const { taps, half, coefficients } = polyphaseFilter(up, down);
  const out = new Float32Array(Math.round((input.length * up) / down));
  const n = input.length;
  // Output k sits at input position k·down/up: between samples `base` and `base + 1`,
  // `phase`/`up` of the way. Both step by whole numbers, so no division per sample.
  const baseStep = Math.floor(down / up);
  const phaseStep = down - baseStep * up;
  const unrolled = taps - (taps % 4);
  let base = 0;
  let phase = 0;
  for (let k = 0; k < out.length; k++) {
    const first = base - half + 1;
    const offset = phase * taps;
    if (first >= 0 && first + taps <= n) {
      // Four running sums: independent additions the CPU overlaps (about 1.5× faster than one).
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      for (; j < unrolled; j += 4) {
        s0 += coefficients[offset + j]! * input[first + j]!;
        s1 += coefficients[offset + j + 1]! * input[first + j + 1]!;
        s2 += coefficients[offset + j + 2]! * input[first + j + 2]!;
        s3 += coefficients[offset + j + 3]! * input[first + j + 3]!;
      }
      for (; j < taps; j++) s0 += coefficients[offset + j]! * input[first + j]!;
      out[k] = s0 + s1 + (s2 + s3);
    } else {
      // Near the ends: samples beyond the input are silence.
      let sum = 0;
      for (let j = Math.max(0, -first); j < taps && first + j < n; j++) sum += coefficients[offset + j]! * input[first + j]!;
      out[k] = sum;
    }
    base += baseStep;
    phase += phaseStep;
    if (phase >= up) {
      phase -= up;
      base++;
    }
  }
  return out;
}

interface PolyphaseFilter {
  /** Taps per phase, covering input samples base-half+1 .. base+half. */
  taps: number;
  half: number;
  /** `up` phases of `taps` coefficients each, phase-major. */
  coefficients: Float32Array;
}

const filters = new Map<string, PolyphaseFilter>();

/** The filter for one rate pair, built once per process. */
function polyphaseFilter(up: number, down: number): PolyphaseFilter {
  const key = `${up}/${down}`;
  const cached = filters.get(key);
  if (cached) return cached;
  // Cutoff in cycles per input sample, relative to the input's Nyquist frequency.
  const cutoff = Math.min(1, up / down) * ROLLOFF;
  const half = Math.ceil(ZERO_CROSSINGS / cutoff);
  const taps = 2 * half;
  const coefficients = new Float32Array(up * taps);
  const norm = besselI0(KAISER_BETA);
  for (let phase = 0; phase < up; phase++) {
    const fraction = phase / up;
    let sum = 0;
    for (let j = 0; j < taps; j++) {
      // Distance in input samples from the output position to input sample base-half+1+j.
      const t = j - half + 1 - fraction;
      const x = t / half;
      const window = Math.abs(x) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - x * x)) / norm;
      const value = cutoff * sinc(cutoff * t) * window;
      coefficients[phase * taps + j] = value;
      sum += value;
    }
    for (let j = 0; j < taps; j++) coefficients[phase * taps + j]! /= sum;
  }
  const filter = { taps, half, coefficients };
  filters.set(key, filter);
  return filter;
}

function sinc(x: number): number {
  return x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
}

/** The zeroth-order modified Bessel function of the first kind, by its power series. */
function besselI0(x: number): number {
  let term = 1;
  let sum = 1;
  for (let k = 1; term > 1e-12 * sum; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
