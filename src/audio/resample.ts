import type { MonoAudio } from './decode.js';
import { FIR_WASM } from './fir-wasm.js';

/**
 * Band-limited rational resampling: a polyphase Kaiser-windowed sinc, one phase per
 * output position between input samples. Done once per sample before any clock
 * starts, never per chunk. The output has exactly round(n · to / from) samples, and
 * each phase's taps sum to 1, so silence stays silence and DC passes unchanged.
 */
export function resample(audio: MonoAudio, targetRate: number): Promise<MonoAudio> {
  if (audio.sampleRate === targetRate) return Promise.resolve(audio);
  return Promise.resolve({ samples: resampleSamples(audio.samples, audio.sampleRate, targetRate), sampleRate: targetRate });
}

/** Zero crossings of the sinc on each side of the centre, at the lower of the two rates. */
const ZERO_CROSSINGS = 12;
/** Passband edge as a fraction of the lower Nyquist frequency (speech has little energy near it). */
const ROLLOFF = 0.95;
/** Kaiser window shape: about 95 dB of stopband attenuation. */
const KAISER_BETA = 10;
/** Names the filter and its arithmetic; the prepared-audio cache keys entries by it, so a change prepares again. */
export const RESAMPLER = `polyphase Kaiser sinc, ${ZERO_CROSSINGS} zero crossings, rolloff ${ROLLOFF}, beta ${KAISER_BETA}, f32x4 kernel`;

export function resampleSamples(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  const g = gcd(fromRate, toRate);
  const up = toRate / g;
  const down = fromRate / g;
  const filter = polyphaseFilter(up, down);
  const out = new Float32Array(Math.round((input.length * up) / down));
  // Output k sits at input position k·down/up: its first tap is on input sample first(k).
  const first = (k: number): number => Math.floor((k * down) / up) - filter.half + 1;
  // Where every tap (padded to a multiple of 4) falls inside the input, the SIMD kernel; near the ends, JavaScript.
  let from = 0;
  while (from < out.length && first(from) < 0) from++;
  let to = out.length;
  while (to > from && first(to - 1) + filter.stride > input.length) to--;
  atEnds(input, out, filter, up, down, 0, from);
  inKernel(input, out, filter, up, down, from, to);
  atEnds(input, out, filter, up, down, to, out.length);
  return out;
}

/** Outputs [from, to) whose taps reach past the input: samples beyond it are silence. */
function atEnds(input: Float32Array, out: Float32Array, filter: PolyphaseFilter, up: number, down: number, from: number, to: number): void {
  for (let k = from; k < to; k++) {
    const base = Math.floor((k * down) / up);
    const offset = (k * down - base * up) * filter.stride;
    const first = base - filter.half + 1;
    let sum = 0;
    for (let j = Math.max(0, -first); j < filter.taps && first + j < input.length; j++) sum += filter.coefficients[offset + j]! * input[first + j]!;
    out[k] = sum;
  }
}

/**
 * Outputs [from, to) by the WebAssembly kernel (fir.wat: five to ten times the speed of
 * the best JavaScript loop), a block at a time so that its memory stays a few MB
 * whatever the length of the input.
 */
function inKernel(input: Float32Array, out: Float32Array, filter: PolyphaseFilter, up: number, down: number, from: number, to: number): void {
  const baseStep = Math.floor(down / up);
  const phaseStep = down - baseStep * up;
  const coefficientBytes = filter.coefficients.byteLength;
  for (let k = from; k < to; k += BLOCK) {
    const count = Math.min(BLOCK, to - k);
    const base = Math.floor((k * down) / up);
    const phase = k * down - base * up;
    const start = base - filter.half + 1;
    const end = Math.floor(((k + count - 1) * down) / up) - filter.half + 1 + filter.stride;
    const inputBytes = (end - start) * 4;
    const { memory, fir } = kernel(coefficientBytes + inputBytes + count * 4);
    const floats = new Float32Array(memory.buffer);
    floats.set(filter.coefficients, 0);
    floats.set(input.subarray(start, end), coefficientBytes / 4);
    fir(0, coefficientBytes, coefficientBytes + inputBytes, count, 0, phase, filter.stride, up, baseStep, phaseStep);
    out.set(floats.subarray((coefficientBytes + inputBytes) / 4, (coefficientBytes + inputBytes) / 4 + count), k);
  }
}

/** Outputs per kernel call. */
const BLOCK = 1 << 16;

/** What is used of the WebAssembly API (TypeScript declares it only with the DOM library, which this project leaves out). */
declare const WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: object } };

interface Kernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  /** A WebAssembly export: a plain function, no `this`. */
  fir: (
    coefficients: number,
    input: number,
    output: number,
    count: number,
    first: number,
    phase: number,
    taps: number,
    up: number,
    baseStep: number,
    phaseStep: number,
  ) => void;
}

let instance: Kernel | undefined;

/** The kernel, compiled once per thread, its memory grown to at least `bytes`. */
function kernel(bytes: number): Kernel {
  instance ??= new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(FIR_WASM, 'base64'))).exports as unknown as Kernel;
  const missing = bytes - instance.memory.buffer.byteLength;
  if (missing > 0) instance.memory.grow(Math.ceil(missing / 65_536));
  return instance;
}

interface PolyphaseFilter {
  /** Taps per phase, covering input samples base-half+1 .. base+half. */
  taps: number;
  half: number;
  /** Coefficients per phase as stored: `taps` rounded up to a multiple of 4, the rest zeros (the kernel takes four at a time). */
  stride: number;
  /** `up` phases of `stride` coefficients each, phase-major. */
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
  const stride = Math.ceil(taps / 4) * 4;
  const coefficients = new Float32Array(up * stride);
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
      coefficients[phase * stride + j] = value;
      sum += value;
    }
    for (let j = 0; j < taps; j++) coefficients[phase * stride + j]! /= sum;
  }
  const filter = { taps, half, stride, coefficients };
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
