import { crc16, crc8 } from './flac-decode.js';

/**
 * A small FLAC encoder for `--upload-format flac` (and the benches' FLAC files): 16-bit,
 * mono or independent channels, blocks of 4096 samples, each subframe a FIXED order-2
 * predictor with one Rice partition, or raw residuals (an escaped partition) where
 * those are smaller, as for noise. Lossless and about half the size of a WAV for
 * speech; not as small as libFLAC, which a benchmark need not be.
 */
const BLOCK = 4096;

export function encodeFlac(audio: Float32Array | Float32Array[], sampleRate: number): Buffer {
  const channels = (Array.isArray(audio) ? audio : [audio]).map((samples) =>
    Int16Array.from(samples, (s) => Math.max(-32768, Math.min(32767, Math.round(s * 32768)))),
  );
  const frames = channels[0]!.length;
  const out = new BitWriter();
  for (const byte of Buffer.from('fLaC', 'ascii')) out.bits(byte, 8);
  // STREAMINFO, the last metadata block: sizes, rate, channels, depth, length, no MD5.
  out.bits(0x80, 8).bits(34, 24);
  out.bits(BLOCK, 16).bits(BLOCK, 16).bits(0, 24).bits(0, 24);
  out
    .bits(sampleRate, 20)
    .bits(channels.length - 1, 3)
    .bits(15, 5)
    .bits(Math.floor(frames / 2 ** 32), 4)
    .bits(frames >>> 0, 32);
  for (let i = 0; i < 16; i++) out.bits(0, 8);
  for (let start = 0, frame = 0; start < frames; start += BLOCK, frame++)
    writeFrame(
      out,
      channels.map((c) => c.subarray(start, start + BLOCK)),
      frame,
      sampleRate,
    );
  return out.done();
}

/** Frame header codes of the common rates; others are written in Hz at the end of the header (code 13). */
const RATE_CODES: Record<number, number> = { 8000: 4, 16000: 5, 22050: 6, 24000: 7, 32000: 8, 44100: 9, 48000: 10, 96000: 11 };

function writeFrame(out: BitWriter, blocks: Int16Array[], frame: number, sampleRate: number): void {
  const headerStart = out.length();
  const rateCode = RATE_CODES[sampleRate] ?? 13;
  const length = blocks[0]!.length;
  // Sync and fixed blocking; block size at the end of the header; the rate; independent channels; 16 bits.
  out
    .bits(0xfff8, 16)
    .bits(0b0111, 4)
    .bits(rateCode, 4)
    .bits(blocks.length - 1, 4)
    .bits(0b100, 3)
    .bits(0, 1);
  utf8Number(out, frame);
  out.bits(length - 1, 16);
  if (rateCode === 13) out.bits(sampleRate, 16);
  const header = out.bytesFrom(headerStart);
  out.bits(crc8(header, 0, header.length), 8);
  for (const block of blocks) writeSubframe(out, block);
  out.align();
  const written = out.bytesFrom(headerStart);
  out.bits(crc16(written, 0, written.length), 16);
}

function writeSubframe(out: BitWriter, block: Int16Array): void {
  const order = block.length > 2 ? 2 : 0;
  out
    .bits(0, 1)
    .bits(0b001000 | order, 6)
    .bits(0, 1);
  for (let i = 0; i < order; i++) out.bits(block[i]! & 0xffff, 16);
  const residuals: number[] = [];
  for (let i = order; i < block.length; i++) residuals.push(order === 2 ? block[i]! - 2 * block[i - 1]! + block[i - 2]! : block[i]!);
  const folded = residuals.map((r) => (r >= 0 ? 2 * r : -2 * r - 1));
  const mean = folded.reduce((sum, u) => sum + u, 0) / Math.max(1, folded.length);
  const k = Math.min(14, Math.max(0, Math.floor(Math.log2(mean + 1))));
  // Raw residuals in the fewest two's-complement bits that hold them all, when that is smaller.
  const rawBits = residuals.reduce((most, r) => Math.max(most, signedWidth(r)), 0);
  const riceBits = folded.reduce((sum, u) => sum + Math.floor(u / 2 ** k) + 1 + k, 0);
  out.bits(0, 2).bits(0, 4);
  if (5 + rawBits * residuals.length < riceBits) {
    out.bits(15, 4).bits(rawBits, 5);
    for (const r of residuals) out.bits(r & (2 ** rawBits - 1), rawBits);
    return;
  }
  out.bits(k, 4);
  for (const u of folded) {
    for (let q = Math.floor(u / 2 ** k); q > 0; q--) out.bits(0, 1);
    out.bits(1, 1).bits(u % 2 ** k, k);
  }
}

/** The fewest two's-complement bits that hold `n`. */
function signedWidth(n: number): number {
  const magnitude = n < 0 ? -n - 1 : n;
  return magnitude === 0 ? 1 : Math.floor(Math.log2(magnitude)) + 2;
}

/** FLAC's frame number: UTF-8's variable-length coding of an integer. */
function utf8Number(out: BitWriter, n: number): void {
  if (n < 0x80) return void out.bits(n, 8);
  const tail = n < 0x800 ? 1 : n < 0x10000 ? 2 : n < 0x200000 ? 3 : n < 0x4000000 ? 4 : 5;
  out.bits(((0xff << (7 - tail)) & 0xff) | Math.floor(n / 2 ** (6 * tail)), 8);
  for (let i = tail - 1; i >= 0; i--) out.bits(0x80 | (Math.floor(n / 2 ** (6 * i)) & 0x3f), 8);
}

class BitWriter {
  private bytes = new Uint8Array(1 << 16);
  private byte = 0;
  private bit = 0;

  bits(value: number, count: number): this {
    for (let i = count - 1; i >= 0; i--) {
      if (this.byte >= this.bytes.length) {
        const grown = new Uint8Array(this.bytes.length * 2);
        grown.set(this.bytes);
        this.bytes = grown;
      }
      if (Math.floor(value / 2 ** i) % 2) this.bytes[this.byte]! |= 0x80 >> this.bit;
      if (++this.bit === 8) {
        this.bit = 0;
        this.byte++;
      }
    }
    return this;
  }

  align(): void {
    if (this.bit > 0) this.bits(0, 8 - this.bit);
  }

  length(): number {
    return this.byte;
  }

  bytesFrom(start: number): Uint8Array {
    return this.bytes.subarray(start, this.byte);
  }

  done(): Buffer {
    this.align();
    return Buffer.from(this.bytes.subarray(0, this.byte));
  }
}
