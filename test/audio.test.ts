import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { vllmDialect } from '../src/dialects/vllm/client.js';
import { decodeWav } from '../src/audio/decode.js';
import { toPcm16 } from '../src/audio/pcm.js';
import { resample } from '../src/audio/resample.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadFolderDataset } from '../src/data/load.js';
import { chunkAudio } from '../src/session/prepare.js';
import { tempDir } from './helpers.js';

const tone = (hz: number, rate: number, seconds: number, amplitude = 0.5): Float32Array =>
  Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate));

/** Frequency by counting upward zero crossings; amplitude by RMS. */
function measure(samples: Float32Array, rate: number): { hz: number; rms: number } {
  let crossings = 0;
  let squares = 0;
  for (let i = 1; i < samples.length; i++) {
    if (samples[i - 1]! < 0 && samples[i]! >= 0) crossings++;
    squares += samples[i]! ** 2;
  }
  return { hz: crossings / (samples.length / rate), rms: Math.sqrt(squares / samples.length) };
}

describe('audio', () => {
  it('decodes the bundled 16-bit WAV with its exact sample count', async () => {
    const bytes = await readFile(join(BUNDLED_SAMPLES_DIR, 'harvard-01.wav'));
    const audio = decodeWav(bytes);
    assert.equal(audio.sampleRate, 16_000);
    assert.equal(audio.samples.length, (bytes.length - 44) / 2);
  });

  it('round-trips 16-bit PCM exactly', async () => {
    const bytes = await readFile(join(BUNDLED_SAMPLES_DIR, 'harvard-01.wav'));
    assert.ok(toPcm16(decodeWav(bytes).samples).equals(bytes.subarray(44)));
  });

  it('downmixes stereo to mono', () => {
    const left = tone(440, 8000, 0.1);
    const wav = encodeWaveFromFloat32Channels([left, new Float32Array(left.length)], 8000, 16);
    const { samples } = decodeWav(wav);
    assert.ok(Math.abs(samples[20]! - left[20]! / 2) < 1e-4);
  });

  for (const [from, to] of [
    [44_100, 16_000],
    [48_000, 16_000],
    [48_000, 24_000],
    [8_000, 16_000],
    [16_000, 24_000],
    [22_050, 16_000],
  ] as const) {
    it(`resamples ${from} Hz to ${to} Hz to the exact length, a tone within 90 dB of the ideal one`, async () => {
      const input = tone(1000, from, 3);
      const { samples, sampleRate } = await resample({ samples: input, sampleRate: from }, to);
      assert.equal(sampleRate, to);
      assert.equal(samples.length, Math.round((input.length * to) / from));
      // Away from the ends (where the input stops abruptly), against the tone sampled at the new rate.
      const ideal = tone(1000, to, 3);
      let error = 0;
      let power = 0;
      for (let i = to / 10; i < samples.length - to / 10; i++) {
        error += (samples[i]! - ideal[i]!) ** 2;
        power += ideal[i]! ** 2;
      }
      const snrDb = 10 * Math.log10(power / error);
      assert.ok(snrDb > 90, `SNR ${snrDb.toFixed(1)} dB`);
    });
  }

  it('gives what the windowed-sinc sum gives, evaluated directly, at the ends, across kernel blocks and for inputs shorter than the filter', async () => {
    const direct = (input: Float32Array, from: number, to: number): Float64Array => {
      // The definition resample.ts implements: 12 zero crossings at 0.95 of the lower Nyquist, Kaiser β 10, each phase's taps summing to 1.
      const cutoff = Math.min(1, to / from) * 0.95;
      const half = Math.ceil(12 / cutoff);
      const i0 = (x: number): number => {
        let [term, sum] = [1, 1];
        for (let k = 1; term > 1e-12 * sum; k++) sum += term *= (x / (2 * k)) ** 2;
        return sum;
      };
      const tap = (t: number): number =>
        Math.abs(t / half) >= 1 ? 0 : (t === 0 ? 1 : Math.sin(Math.PI * cutoff * t) / (Math.PI * cutoff * t)) * i0(10 * Math.sqrt(1 - (t / half) ** 2));
      return Float64Array.from({ length: Math.round((input.length * to) / from) }, (_, k) => {
        const position = (k * from) / to;
        const base = Math.floor(position + 1e-9);
        let [sum, weight] = [0, 0];
        for (let i = base - half + 1; i <= base + half; i++) {
          const w = tap(position - i);
          weight += w;
          if (i >= 0 && i < input.length) sum += w * input[i]!;
        }
        return sum / weight;
      });
    };
    let seed = 7;
    const noise = (n: number): Float32Array => Float32Array.from({ length: n }, () => ((seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647 - 0.5) * 0.8);
    for (const [from, to, n] of [
      [48_000, 16_000, 250_000],
      [44_100, 16_000, 3_000],
      [8_000, 24_000, 500],
      [22_050, 16_000, 30],
      [48_000, 16_000, 3],
    ] as const) {
      const input = noise(n);
      const { samples } = await resample({ samples: input, sampleRate: from }, to);
      const expected = direct(input, from, to);
      assert.equal(samples.length, expected.length);
      const worst = samples.reduce((max, x, k) => Math.max(max, Math.abs(x - expected[k]!)), 0);
      assert.ok(worst < 1e-5, `${from} → ${to}, ${n} samples: differs by ${worst}`);
    }
  });

  it('removes a tone above the new Nyquist instead of aliasing it', async () => {
    const { samples } = await resample({ samples: tone(10_000, 44_100, 1), sampleRate: 44_100 }, 16_000);
    const { rms } = measure(samples.subarray(800, 15_200), 16_000);
    assert.ok(rms < 0.5e-4, `rms ${rms}`);
  });

  it('keeps silence silent and a constant level constant', async () => {
    const { samples: silent } = await resample({ samples: new Float32Array(44_100), sampleRate: 44_100 }, 16_000);
    assert.ok(silent.every((x) => x === 0));
    const { samples: level } = await resample({ samples: new Float32Array(48_000).fill(0.25), sampleRate: 48_000 }, 16_000);
    assert.ok(level.subarray(1000, 15_000).every((x) => Math.abs(x - 0.25) < 1e-6));
  });

  it('chunks PCM into chunk-ms frames with the remainder last', () => {
    const adapter = vllmDialect({ model: 'm' });
    const turn = chunkAudio(Buffer.alloc(16_000 * 2 * 0.25), 16_000, 100, adapter);
    assert.deepEqual(
      turn.chunks.map((c) => [c.audioStartMs, c.audioEndMs]),
      [
        [0, 100],
        [100, 200],
        [200, 250],
      ],
    );
    assert.equal(turn.audioMs, 250);
    const frame = JSON.parse(turn.chunks[2]!.frame({ startMs: 200, endMs: 250 }).toString()) as { type: string; audio: string };
    assert.equal(frame.type, 'input_audio_buffer.append');
    assert.equal(Buffer.from(frame.audio, 'base64').length, 1600);
  });
});

describe('folder dataset', () => {
  it('loads the bundled samples with references and word timings', async () => {
    const dataset = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
    assert.equal(dataset.samples.length, 6);
    const first = dataset.samples[0]!;
    assert.equal(first.id, 'harvard-01');
    assert.equal(first.text, 'The birch canoe slid on the smooth planks.');
    assert.equal(first.words!.length, 8);
    assert.deepEqual(dataset.problems, []);
  });

  it('reports an unreadable file with its path and reason, and loads the rest', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'good.wav'), encodeWaveFromFloat32Channels([tone(440, 16_000, 0.2)], 16_000, 16));
    await writeFile(join(dir, 'good.txt'), 'a tone\n');
    await writeFile(join(dir, 'broken.wav'), 'not a wav file');
    await writeFile(join(dir, 'badtimes.wav'), encodeWaveFromFloat32Channels([tone(440, 16_000, 0.2)], 16_000, 16));
    await writeFile(join(dir, 'badtimes.words.json'), '[{"word": "x"}]');
    const dataset = await loadFolderDataset(dir);
    assert.deepEqual(
      dataset.samples.map((s) => [s.id, s.text]),
      [['good', 'a tone']],
    );
    assert.deepEqual(
      dataset.problems.map((p) => p.file),
      [join(dir, 'badtimes.wav'), join(dir, 'broken.wav')],
    );
    assert.match(dataset.problems[0]!.reason, /^badtimes\.words\.json must be a JSON array/);
  });
});
