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

export function resampleSamples(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  const g = gcd(fromRate, toRate);
  const up = toRate / g;
  const down = fromRate / g;
  const filter = polyphaseFilter(up, down);
  const { taps, half } = filter;
  const out = new Float32Array(Math.round((input.length * up) / down));
  const last = input.length - 1;
  for (let k = 0; k < out.length; k++) {
    // Output k sits at input position k·down/up: between samples `base` and `base + 1`.
    const position = k * down;
    const base = Math.floor(position / up);
    const phase = position - base * up;
    const offset = phase * taps;
    const first = base - half + 1;
    let sum = 0;
    if (first >= 0 && first + taps - 1 <= last) {
      for (let j = 0; j < taps; j++) sum += filter.coefficients[offset + j]! * input[first + j]!;
    } else {
      // Near the ends: samples beyond the input are silence.
      for (let j = 0; j < taps; j++) {
        const i = first + j;
        if (i >= 0 && i <= last) sum += filter.coefficients[offset + j]! * input[i]!;
      }
    }
    out[k] = sum;
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
