import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decoder as libflac } from '@audio/decode-flac';
import { AudioDecodeError, decodeAudio } from '../src/audio/decode.js';
import { decodeFlac, readFlacFrames, readFlacStreamInfo } from '../src/audio/flac-decode.js';
import { encodeFlac } from '../src/audio/flac-encode.js';
import { toPcm16 } from '../src/audio/pcm.js';
import { decodeReceivedAudio } from '../src/audio/received.js';
import { AUDIO_FIXTURES } from './data-fixtures.js';

/** Files from Debian's flac (scripts/make-flac-fixtures.sh): every depth, subframe type, stereo mode and header form. */
const FLAC_FIXTURES = join(AUDIO_FIXTURES, 'flac');

/** Each channel's integer samples, decorrelated here from the frames as the format defines it. */
function channelsOf(bytes: Uint8Array): number[][] {
  const info = readFlacStreamInfo(bytes);
  const channels: number[][] = Array.from({ length: info.channels }, () => []);
  readFlacFrames(bytes, info, (subframes, n, assignment) => {
    for (let i = 0; i < n; i++) {
      const [a, b] = [subframes[0]![i]!, subframes[1]?.[i] ?? 0];
      const pairs: Record<number, [number, number]> = {
        8: [a, a - b],
        9: [a + b, b],
        10: [(2 * a + (b & 1) + b) / 2, (2 * a + (b & 1) - b) / 2],
      };
      const frame = pairs[assignment] ?? subframes.map((s) => s[i]!);
      frame.forEach((x, c) => channels[c]!.push(x));
    }
  });
  return channels;
}

/** STREAMINFO's MD5 is of the samples interleaved, little-endian, in whole bytes. */
function md5Of(channels: number[][], bits: number): string {
  const width = Math.ceil(bits / 8);
  const bytes = Buffer.alloc(channels.length * channels[0]!.length * width);
  for (let i = 0, at = 0; i < channels[0]!.length; i++) for (const channel of channels) at = bytes.writeIntLE(channel[i]!, at, width);
  return createHash('md5').update(bytes).digest('hex');
}

async function decodeWithLibflac(bytes: Uint8Array): Promise<Float32Array[]> {
  const flac = await libflac();
  try {
    return flac.decode(bytes).channelData;
  } finally {
    flac.free();
  }
}

/**
 * libFLAC's wrapper turns each integer into float32 and divides by 2^(bits-1) − 1, for
 * 8, 16, 24 and 32 bits only (12 and 20 come out NaN, which the old path returned).
 */
const asLibflacFloat = (x: number, bits: number): number => Math.fround(Math.fround(x) / Math.fround(2 ** (bits - 1) - 1));

/** libFLAC's samples, every one, against ours: decorrelated channels, then the mono sum. */
async function assertSameAsLibflac(bytes: Uint8Array, name: string): Promise<void> {
  const { bitsPerSample: bits, channels: count } = readFlacStreamInfo(bytes);
  const ours = channelsOf(bytes);
  const theirs = await decodeWithLibflac(bytes);
  assert.equal(theirs.length, count, name);
  for (let c = 0; c < count; c++) {
    assert.equal(theirs[c]!.length, ours[c]!.length, `${name}: channel ${c} length`);
    const first = theirs[c]!.findIndex((x, i) => !Object.is(x, asLibflacFloat(ours[c]![i]!, bits)));
    assert.equal(first, -1, `${name}: channel ${c} differs from sample ${first}`);
  }
  const mono = decodeFlac(bytes).samples;
  const scale = 2 ** (bits - 1) * count;
  const first = mono.findIndex((x, i) => !Object.is(x, Math.fround(ours.reduce((sum, channel) => sum + channel[i]!, 0) / scale)));
  assert.equal(first, -1, `${name}: the mono sum differs from sample ${first}`);
}

/** A block (4096 samples, the encoder's) each of silence, a tone, full-scale noise (escaped raw residuals) and a clipped square, in turn. */
function testSignal(length: number, seed: number): Float32Array {
  let state = seed;
  const random = (): number => ((state = (state * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32) * 2 - 1;
  return Float32Array.from({ length }, (_, i) => {
    const part = Math.floor(i / 4096) % 4;
    return part === 0 ? 0 : part === 1 ? 0.6 * Math.sin(i / (3 + seed)) : part === 2 ? random() : Math.sign(Math.sin(i / 40)) * 1.2;
  });
}

const rejects = (bytes: Uint8Array, reason: RegExp): Promise<void> =>
  assert.rejects(decodeAudio(bytes, 'clip.flac'), (err: unknown) => {
    assert.ok(err instanceof AudioDecodeError, String(err));
    assert.match(err.message, /^clip\.flac: /);
    assert.match(err.reason, reason);
    return true;
  });

describe('the FLAC decoder', () => {
  it("decodes Debian flac's files, -0 and -8, 8 to 32 bits, to the samples its MD5 was made from", async () => {
    const names = (await readdir(FLAC_FIXTURES)).filter((n) => n.endsWith('.flac'));
    assert.ok(names.length >= 8, names.join());
    for (const name of names) {
      const bytes = await readFile(join(FLAC_FIXTURES, name));
      const info = readFlacStreamInfo(bytes);
      const channels = channelsOf(bytes);
      assert.equal(channels[0]!.length, info.totalFrames, name);
      assert.equal(md5Of(channels, info.bitsPerSample), Buffer.from(bytes.subarray(26, 42)).toString('hex'), `${name}: MD5`);
    }
  });

  it('gives the samples libFLAC gives, bit for bit, at 8, 16, 24 and 32 bits, in every stereo mode', async () => {
    const names = (await readdir(FLAC_FIXTURES)).filter((n) => /^s(8|16|24|32)-/.test(n));
    assert.ok(names.length >= 6, names.join());
    for (const name of names) await assertSameAsLibflac(await readFile(join(FLAC_FIXTURES, name)), name);
    await assertSameAsLibflac(await readFile(join(AUDIO_FIXTURES, 'tone.flac')), 'tone.flac');
  });

  it("gives the samples libFLAC gives for voxbench's own encoder, at several rates and channel counts, escaped partitions included", async () => {
    for (const [rate, channels, length] of [
      [8000, 1, 4096 * 3 + 1000],
      [11_025, 2, 4096 * 4],
      [16_000, 3, 4096 * 3 + 7],
      [44_100, 2, 100],
      [96_000, 1, 4096 * 4 + 1],
    ] as const) {
      const bytes = encodeFlac(
        Array.from({ length: channels }, (_, c) => testSignal(length, c + 1)),
        rate,
      );
      assert.equal(readFlacStreamInfo(bytes).sampleRate, rate);
      await assertSameAsLibflac(bytes, `${rate} Hz × ${channels}`);
    }
  });

  it('reads a stream whose length STREAMINFO leaves unknown, and ignores a tag after the last frame of one it knows', async () => {
    const bytes = await readFile(join(FLAC_FIXTURES, 's16-48k-stereo-8.flac'));
    const expected = decodeFlac(bytes).samples;
    const unknown = Uint8Array.from(bytes);
    unknown[21]! &= 0xf0;
    unknown.fill(0, 22, 26);
    assert.deepEqual(decodeFlac(unknown).samples, expected);
    const tagged = Buffer.concat([bytes, Buffer.from('TAG'.padEnd(128, ' '))]);
    assert.deepEqual((await decodeAudio(tagged, 'tagged.flac')).samples, expected);
  });

  it('decodes what a file holds when STREAMINFO claims the most a header can (2^36 − 1 samples), without allocating for the claim', async () => {
    const bytes = Uint8Array.from(await readFile(join(FLAC_FIXTURES, 's16-48k-stereo-8.flac')));
    const expected = decodeFlac(bytes).samples;
    bytes[21]! |= 0x0f;
    bytes.fill(0xff, 22, 26);
    assert.deepEqual(decodeFlac(bytes).samples, expected);
    await rejects(bytes, /^the header declares 1431655\.77 s of audio but only 0\.25 s could be decoded/);
  });

  describe('fails a damaged file with one reason naming the file and the frame', () => {
    const file = (): Buffer => encodeFlac(testSignal(4096 * 3, 1), 16_000);

    it('a changed byte in a frame (CRC-16)', () => {
      const bytes = file();
      bytes[bytes.length - 1]! ^= 0x10;
      return rejects(bytes, /^corrupt FLAC data: the frame at 0\.51 s \(byte \d+\) fails its CRC-16 check$/);
    });

    it('a changed frame header (CRC-8)', async () => {
      const bytes = file();
      bytes[readFlacStreamInfo(bytes).firstFrame + 2]! ^= 0x01;
      await rejects(bytes, /^corrupt FLAC data: the frame at 0\.00 s \(byte \d+\) fails its header CRC-8 check$/);
    });

    it('bytes that are no frame where one should start', async () => {
      const bytes = file();
      bytes.fill(0x55, readFlacStreamInfo(bytes).firstFrame, readFlacStreamInfo(bytes).firstFrame + 4);
      await rejects(bytes, /^corrupt FLAC data: the frame at 0\.00 s .* does not start with a frame sync code$/);
    });

    it('a file cut inside a frame', async () => {
      const bytes = file();
      await rejects(
        bytes.subarray(0, bytes.length - 100),
        /^the FLAC data ends inside the frame at 0\.51 s .*: the file is truncated$|runs past the end of the file: the file is truncated$/,
      );
    });

    it('received audio cut inside a frame (a stream kept up to its byte limit): the frames before it, and where it ended', async () => {
      const whole = decodeFlac(file());
      const received = await decodeReceivedAudio([file().subarray(0, file().length - 100)], 24_000);
      assert.equal(received.sampleRate, 16_000);
      assert.equal(received.pcm.length / 2, 4096 * 2, 'the two whole frames');
      assert.deepEqual([...received.pcm.subarray(0, 64)], [...toPcm16(whole.samples.subarray(0, 32))]);
      assert.match(received.formatProblems.join(), /^the FLAC data ends inside the frame at 0\.51 s .*: the file is truncated$/);
    });

    it('a file cut between frames (fewer samples than STREAMINFO declares)', async () => {
      const bytes = file();
      // The second frame's sync code (the first frame, silence, holds no byte pair like it).
      const second = bytes.indexOf(Buffer.from([0xff, 0xf8]), readFlacStreamInfo(bytes).firstFrame + 2);
      await rejects(bytes.subarray(0, second), /^the header declares 0\.77 s of audio but only 0\.26 s could be decoded/);
    });
  });
});
