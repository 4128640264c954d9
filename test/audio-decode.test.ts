import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decodeWaveToFloat32Channels } from '@echogarden/wave-codec';
import { AudioDecodeError, decodeAudio } from '../src/audio/decode.js';
import { resample } from '../src/audio/resample.js';
import { AUDIO_FIXTURES, tone, toneWav } from './data-fixtures.js';

const fixture = (name: string): Promise<Uint8Array> => readFile(join(AUDIO_FIXTURES, name));

/** Every fixture is the same 0.2 s stereo tone (scripts/make-audio-fixtures.sh). */
const DECODABLE: Array<[string, number, number]> = [
  ['pcm-u8.wav', 22_050, 4410],
  ['pcm-s16.wav', 22_050, 4410],
  ['pcm-s24.wav', 22_050, 4410],
  ['pcm-s32.wav', 22_050, 4410],
  ['float-32.wav', 22_050, 4410],
  ['float-64.wav', 22_050, 4410],
  ['mulaw.wav', 22_050, 4410],
  ['alaw.wav', 22_050, 4410],
  ['tone.flac', 22_050, 4410],
  ['tone.mp3', 22_050, 4410],
  ['tone.ogg', 22_050, 4410],
  ['tone.opus', 48_000, 9600],
];

/** Decoding must fail with this reason, quickly (a bad header must not hang the decoder). */
async function rejects(bytes: Uint8Array, reason: RegExp): Promise<void> {
  await assert.rejects(decodeAudio(bytes, 'clip'), (err: unknown) => {
    assert.ok(err instanceof AudioDecodeError, String(err));
    assert.match(err.reason, reason);
    assert.equal(err.message, `clip: ${err.reason}`);
    return true;
  });
}

function withDataSize(wav: Uint8Array, declared: number): Uint8Array {
  const copy = Uint8Array.from(wav);
  const data = Buffer.from(copy).indexOf('data');
  new DataView(copy.buffer).setUint32(data + 4, declared, true);
  return copy;
}

describe('decodeAudio', () => {
  for (const [name, rate, frames] of DECODABLE) {
    it(`decodes ${name} to ${frames} mono frames at ${rate} Hz`, { timeout: 10_000 }, async () => {
      const audio = await decodeAudio(await fixture(name), name);
      assert.equal(audio.sampleRate, rate);
      assert.equal(audio.samples.length, frames);
    });
  }

  it('reads every WAV sample format straight to mono as the codec library decodes and averages its channels', async () => {
    for (const [name] of DECODABLE.filter(([n]) => n.endsWith('.wav'))) {
      const bytes = await fixture(name);
      const { audioChannels } = decodeWaveToFloat32Channels(bytes);
      const { samples } = await decodeAudio(bytes, name);
      const worst = samples.reduce((max, x, i) => Math.max(max, Math.abs(x - (audioChannels[0]![i]! + audioChannels[1]![i]!) / 2)), 0);
      assert.ok(worst < 1e-7, `${name} differs by ${worst}`);
    }
  });

  it('decodes FLAC to exactly the samples of the 16-bit WAV it was made from (lossless, same scale), downmixed', async () => {
    const wav = await decodeAudio(await fixture('pcm-s16.wav'), 'wav');
    const flac = await decodeAudio(await fixture('tone.flac'), 'flac');
    // Both scale PCM by 1 / (32768 × channels): the same float samples, bit for bit.
    assert.deepEqual(flac.samples, wav.samples);
    // 440 Hz left and 660 Hz right at 0.5 each, averaged: the mono peak stays under 0.5.
    assert.ok(Math.max(...wav.samples.map(Math.abs)) < 0.5);
  });

  it('keeps a lossy tone at its frequency and level: Opus at 48 kHz resampled to 16 kHz', async () => {
    const left = await decodeAudio(await fixture('pcm-s16.wav'), 'wav');
    const opus = await resample(await decodeAudio(await fixture('tone.opus'), 'opus'), 16_000);
    const reference = await resample(left, 16_000);
    assert.equal(opus.samples.length, reference.samples.length);
    const rms = (s: Float32Array): number => Math.sqrt(s.reduce((sum, x) => sum + x * x, 0) / s.length);
    const middle = (s: Float32Array): Float32Array => s.subarray(400, s.length - 400);
    assert.ok(Math.abs(rms(middle(opus.samples)) - rms(middle(reference.samples))) < 0.01);
  });

  it("upsamples 8 kHz to 24 kHz (the OpenAI rate) keeping a tone's frequency and level", async () => {
    const { samples, sampleRate } = await resample({ samples: tone(1000, 8000, 1, 0.5), sampleRate: 8000 }, 24_000);
    assert.equal(sampleRate, 24_000);
    assert.ok(Math.abs(samples.length - 24_000) <= 1);
    const body = samples.subarray(1200, 22_800);
    let crossings = 0;
    for (let i = 1; i < body.length; i++) if (body[i - 1]! < 0 && body[i]! >= 0) crossings++;
    assert.ok(Math.abs(crossings / (body.length / 24_000) - 1000) < 2, `frequency ${crossings}`);
    const rms = Math.sqrt(body.reduce((sum, x) => sum + x * x, 0) / body.length);
    assert.ok(Math.abs(rms - 0.5 / Math.SQRT2) < 0.005, `rms ${rms}`);
  });

  describe('rejects bad input with one reason', { timeout: 10_000 }, () => {
    it('an empty file', () => rejects(new Uint8Array(0), /^the file is empty \(0 bytes\)$/));

    it('bytes that are no audio format', () =>
      rejects(new TextEncoder().encode('hello, not audio'), /^not a recognised audio file; voxbench reads WAV, FLAC, MP3, Ogg Vorbis, Opus$/));

    it('a recognised but unsupported container', () => rejects(new TextEncoder().encode('FORM\0\0\0\x20AIFFCOMM'), /^AIFF is not supported; convert it/));

    it('an unsupported WAV codec', async () => rejects(await fixture('adpcm.wav'), /^IMA ADPCM in WAV is not supported; convert it to PCM/));

    it('a zero-length WAV (header, no samples)', () =>
      rejects(withDataSize(toneWav(0.1), 0).subarray(0, 44), /^the file holds no audio samples \(zero length\)$/));

    it('a WAV header that declares ten times the audio the file holds', () =>
      rejects(withDataSize(toneWav(0.5), 160_000), /^the header declares 5\.00 s of audio but only 0\.50 s could be decoded/));

    it('a WAV header that declares 4 GiB', () => rejects(withDataSize(toneWav(0.5), 0xffffffff), /^the header declares .* but only 0\.50 s could be decoded/));

    it('a truncated FLAC', async () => {
      const flac = await fixture('tone.flac');
      await rejects(flac.subarray(0, Math.round(flac.length * 0.6)), /truncated/);
    });

    it('a corrupt FLAC (bytes overwritten after the header)', async () => {
      const flac = Uint8Array.from(await fixture('tone.flac'));
      for (let i = 200; i < flac.length; i += 7) flac[i] = (flac[i]! * 31 + 17) & 0xff;
      await rejects(flac, /corrupt|truncated/);
    });

    it('a corrupt MP3 (frames overwritten)', async () => {
      const mp3 = Uint8Array.from(await fixture('tone.mp3'));
      for (let i = 600; i < mp3.length; i += 5) mp3[i] = (mp3[i]! * 31 + 17) & 0xff;
      await rejects(mp3, /corrupt|truncated/);
    });

    for (const name of ['tone.ogg', 'tone.opus']) {
      it(`a truncated ${name}`, async () => {
        const ogg = await fixture(name);
        await rejects(ogg.subarray(0, ogg.length - 500), /truncated/);
      });
    }
  });
});
