/**
 * Audio preparation speed and resampling quality, on one core:
 *
 * - Resampling 60 s of a 1 kHz tone for the rate pairs datasets meet: time (as a
 *   multiple of real time), the tone's SNR against the ideal tone at the new rate, the
 *   level of a tone at 0.43 of the lower rate (the passband edge), and the rejection of
 *   one at 0.6 of it (above the new Nyquist frequency: it must not alias back).
 * - Preparing a sample end to end, as a run does before its clock starts: a 30 s
 *   48 kHz stereo 16-bit WAV, and the same as FLAC (made with src/audio/flac-encode.ts,
 *   and with Debian's `flac -8` where it is installed), decoded, downmixed, resampled
 *   to 16 kHz, chunked into 100 ms frames and base64-encoded as vLLM's JSON appends.
 *
 * Median of five runs each, after one untimed run (the files of a dataset share the
 * compiled code), in CPU time (the process's, all threads: JIT and GC included): the
 * machine is shared, and wall time would count others' work.
 *
 *   npm run bench:prep -- "LABEL"   # writes the rows, labelled, into BENCHMARKS.md
 *   npm run bench:prep              # prints only
 */
import { spawnSync } from 'node:child_process';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { decodeAudio } from '../src/audio/decode.js';
import { encodeFlac } from '../src/audio/flac-encode.js';
import { resampleSamples } from '../src/audio/resample.js';
import { vllmDialect } from '../src/dialects/vllm/client.js';
import { prepareSample, NO_PADDING } from '../src/session/prepare.js';
import { measuredOn, median, tableRow, upsertRow } from './figures.js';

const label = process.argv[2];
const tone = (hz: number, rate: number, seconds: number): Float32Array =>
  Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / rate));

/** RMS relative to the 0.5-amplitude tone, away from the ends. */
function relativeLevel(samples: Float32Array, rate: number): number {
  let squares = 0;
  const from = rate / 4;
  for (let i = from; i < samples.length - from; i++) squares += samples[i]! ** 2;
  return Math.sqrt(squares / (samples.length - 2 * from)) / (0.5 / Math.SQRT2);
}

/** CPU time used so far, in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function timed(run: () => void): number {
  run();
  return median(
    Array.from({ length: 5 }, () => {
      const start = cpuMs();
      run();
      return cpuMs() - start;
    }),
  );
}

const rows: string[] = [];
for (const [from, to] of [
  [44_100, 16_000],
  [48_000, 16_000],
  [48_000, 24_000],
  [16_000, 24_000],
  [8_000, 16_000],
] as const) {
  const input = tone(1000, from, 60);
  let out: Float32Array = new Float32Array();
  const ms = timed(() => (out = resampleSamples(input, from, to)));
  const ideal = tone(1000, to, 60);
  let error = 0;
  let power = 0;
  for (let i = to; i < out.length - to; i++) {
    error += (out[i]! - ideal[i]!) ** 2;
    power += ideal[i]! ** 2;
  }
  const edge = relativeLevel(resampleSamples(tone(0.43 * Math.min(from, to), from, 2), from, to), to);
  const above = relativeLevel(resampleSamples(tone(Math.min(0.6 * to, 0.45 * from), from, 2), from, to), to);
  rows.push(
    tableRow([
      `resample ${from / 1000} → ${to / 1000} kHz`,
      label ?? '',
      measuredOn(),
      Math.round(60_000 / ms),
      (10 * Math.log10(power / error)).toFixed(1),
      edge.toFixed(3),
      from > to ? (-20 * Math.log10(above)).toFixed(1) : '—',
      out.length === Math.round((input.length * to) / from) ? 'exact' : `${out.length - Math.round((input.length * to) / from)}`,
    ]),
  );
}

const stereo = tone(220, 48_000, 30);
const dialect = vllmDialect({ model: 'm' });
const files: Record<string, Uint8Array> = {
  WAV: encodeWaveFromFloat32Channels([stereo, stereo], 48_000, 16),
  // The project's own encoder (independent channels), as the issue measured FLAC.
  FLAC: encodeFlac([stereo, tone(330, 48_000, 30)], 48_000),
};
// libFLAC's own encoder at its highest level: LPC subframes and stereo decorrelation.
const flac8 = spawnSync('flac', ['--silent', '-8', '--stdout', '-'], {
  input: encodeWaveFromFloat32Channels([stereo, tone(330, 48_000, 30)], 48_000, 16),
  maxBuffer: 1 << 26,
});
if (flac8.status === 0) files['FLAC (flac -8)'] = flac8.stdout;
else console.log("Debian's flac is not installed: the `flac -8` row is skipped");
for (const [format, bytes] of Object.entries(files)) {
  const prepTimes: number[] = [];
  for (let i = 0; i < 6; i++) {
    const start = cpuMs();
    const audio = await decodeAudio(bytes, 'clip');
    await prepareSample({ id: 'clip', split: 'test', path: 'clip', text: null, audio }, dialect, 100, NO_PADDING, 'auto');
    if (i > 0) prepTimes.push(cpuMs() - start);
  }
  rows.push(
    tableRow([
      `prepare 30 s 48 kHz stereo ${format} → 16 kHz vLLM appends`,
      label ?? '',
      measuredOn(),
      Math.round(30_000 / median(prepTimes)),
      '—',
      '—',
      '—',
      '—',
    ]),
  );
}

for (const row of rows) {
  console.log(row);
  if (label) await upsertRow('audio-prep', row, 2);
}
