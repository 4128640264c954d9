/**
 * A FLAC decoder that reads a whole file straight into one mono array, scaled as the
 * WAV path scales PCM (by 1 / (2^(depth-1) × channels)), so a FLAC and the WAV it was
 * made from give the same samples. Every frame's header CRC-8 and CRC-16 are checked,
 * and a bad frame throws (naming the time and byte) instead of being skipped or
 * silenced; the MD5 of the whole stream is not checked. Any depth from 4 to 32 bits.
 *
 * Each frame's subframes decode into reused Int32Array buffers (Float64Array for
 * 32-bit streams, whose side channel has 33 bits): warm-up samples, then the
 * residual, then the predictor applied in place. They are then summed into the
 * mono output; stereo decorrelation folds into that sum (left + right is 2·left − side,
 * side + 2·right, or 2·mid + (side & 1)), so no per-channel output is ever made.
 * `readFlacFrames` gives the frames themselves (the tests check them channel by channel).
 */
export interface FlacAudio {
  samples: Float32Array;
  sampleRate: number;
}

/** What STREAMINFO says, and where the first frame starts. */
export interface FlacStreamInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Samples per channel; 0 when the encoder did not know. */
  totalFrames: number;
  maxBlockSize: number;
  firstFrame: number;
}

/** A channel's samples while a frame decodes. */
export type Samples = Int32Array | Float64Array;

export function readFlacStreamInfo(bytes: Uint8Array): FlacStreamInfo {
  if (bytes.length < 42 || bytes[0] !== 0x66 || bytes[1] !== 0x4c || bytes[2] !== 0x61 || bytes[3] !== 0x43 || (bytes[4]! & 0x7f) !== 0) {
    throw new Error('not a FLAC stream: the file does not start with fLaC and its STREAMINFO block');
  }
  const b = (i: number): number => bytes[8 + i]!;
  const info: FlacStreamInfo = {
    maxBlockSize: (b(2) << 8) | b(3),
    sampleRate: (b(10) << 12) | (b(11) << 4) | (b(12) >> 4),
    channels: ((b(12) >> 1) & 7) + 1,
    bitsPerSample: (((b(12) & 1) << 4) | (b(13) >> 4)) + 1,
    totalFrames: (b(13) & 0x0f) * 2 ** 32 + ((b(14) << 24) >>> 0) + (b(15) << 16) + (b(16) << 8) + b(17),
    firstFrame: 4,
  };
  for (let last = false; !last;) {
    if (info.firstFrame + 4 > bytes.length) throw new Error('the FLAC metadata ends before the first frame: the file is truncated');
    last = (bytes[info.firstFrame]! & 0x80) !== 0;
    info.firstFrame += 4 + ((bytes[info.firstFrame + 1]! << 16) | (bytes[info.firstFrame + 2]! << 8) | bytes[info.firstFrame + 3]!);
  }
  if (info.sampleRate === 0) throw new Error('the FLAC STREAMINFO gives a sample rate of 0');
  return info;
}

/** How the decoder's messages about data that ends inside a frame end. */
const TRUNCATED = 'the file is truncated';

/** The data ends inside a frame; `message` says where. */
export class FlacCutShort extends Error {}

/**
 * Decodes a FLAC file to mono. Throws on a corrupt or truncated frame; with `keepCutShort`
 * (a stream that was cut off, as kept received audio can be), data that ends inside a
 * frame gives the frames before it, and `cutShort` says where it ended.
 */
export function decodeFlac(bytes: Uint8Array, options: { keepCutShort?: boolean } = {}): FlacAudio & { cutShort?: string } {
  const info = readFlacStreamInfo(bytes);
  const scale = 1 / (2 ** (info.bitsPerSample - 1) * info.channels);
  // STREAMINFO's length, unless it claims more than 8 samples a byte (a header can claim
  // 2^36): then, or when the length is unknown, the array grows as frames arrive.
  const expected = Math.min(info.totalFrames, bytes.length * 8);
  let mono = new Float32Array(0);
  let done = 0;
  let cutShort: string | undefined;
  try {
    readFlacFrames(bytes, info, (subframes, blockSize, assignment) => {
      if (done + blockSize > mono.length) mono = grown(mono, Math.max(expected, done + blockSize));
      mix(subframes, assignment, blockSize, scale, mono, done);
      done += blockSize;
    });
  } catch (err) {
    if (!(err instanceof FlacCutShort && options.keepCutShort)) throw err;
    cutShort = err.message;
  }
  return { samples: mono.length === done ? mono : mono.slice(0, done), sampleRate: info.sampleRate, ...(cutShort ? { cutShort } : {}) };
}

/**
 * A frame as decoded: one buffer per subframe (its first `blockSize` samples), before
 * stereo decorrelation (`assignment` is the header's channel code: 0-7 independent,
 * 8 left/side, 9 side/right, 10 mid/side). The buffers are reused by the next frame.
 */
export type FlacFrameSink = (subframes: readonly Samples[], blockSize: number, assignment: number) => void;

/** Decodes every frame of the stream `info` describes into `onFrame`. Throws on a corrupt or truncated frame. */
export function readFlacFrames(bytes: Uint8Array, info: FlacStreamInfo, onFrame: FlacFrameSink): void {
  const { channels, bitsPerSample, sampleRate, totalFrames } = info;
  const reader = new BitReader(bytes);
  const Work = bitsPerSample < 32 ? Int32Array : Float64Array;
  let work: Samples[] = Array.from({ length: channels }, () => new Work(Math.max(info.maxBlockSize, 16)));
  let done = 0;
  let at = info.firstFrame;
  // A known length ends the stream; whatever follows the last frame (a tag) is not audio.
  while (at < bytes.length && (totalFrames === 0 || done < totalFrames)) {
    const where = (): string => `the frame at ${(done / sampleRate).toFixed(2)} s (byte ${at})`;
    const header = readFrameHeader(bytes, at, info);
    if (typeof header === 'string') throw flacError(where(), header);
    const { blockSize, assignment } = header;
    if (work[0]!.length < blockSize) work = work.map(() => new Work(blockSize));
    reader.seek(at + header.length);
    for (let c = 0; c < channels; c++) {
      // The side channel carries one bit more than the others.
      const side = (assignment === LEFT_SIDE && c === 1) || (assignment === RIGHT_SIDE && c === 0) || (assignment === MID_SIDE && c === 1);
      const problem = readSubframe(reader, work[c]!, blockSize, bitsPerSample + (side ? 1 : 0));
      if (problem) throw flacError(where(), problem);
    }
    const end = reader.alignedByte() + 2;
    if (end > bytes.length) throw flacError(where(), TRUNCATED);
    if (crc16(bytes, at, end) !== 0) throw new Error(`corrupt FLAC data: ${where()} fails its CRC-16 check`);
    onFrame(work, blockSize, assignment);
    done += blockSize;
    at = end;
  }
}

/** What is wrong with the frame `where`: the data ends inside it, or it is corrupt. */
function flacError(where: string, problem: string): Error {
  return problem.endsWith(TRUNCATED)
    ? new FlacCutShort(`the FLAC data ends inside ${where}: ${TRUNCATED}`)
    : new Error(`corrupt FLAC data: ${where} ${problem}`);
}

function grown(samples: Float32Array, needed: number): Float32Array<ArrayBuffer> {
  const bigger = new Float32Array(Math.max(needed, samples.length * 2));
  bigger.set(samples);
  return bigger;
}

const LEFT_SIDE = 8;
const RIGHT_SIDE = 9;
const MID_SIDE = 10;

/** The channels of one frame summed into `out` from `at`, times `scale`. */
function mix(work: readonly Samples[], assignment: number, n: number, scale: number, out: Float32Array, at: number): void {
  const a = work[0]!;
  if (work.length === 1) {
    for (let i = 0; i < n; i++) out[at + i] = a[i]! * scale;
    return;
  }
  const b = work[1]!;
  if (assignment === LEFT_SIDE) for (let i = 0; i < n; i++) out[at + i] = (2 * a[i]! - b[i]!) * scale;
  else if (assignment === RIGHT_SIDE) for (let i = 0; i < n; i++) out[at + i] = (a[i]! + 2 * b[i]!) * scale;
  else if (assignment === MID_SIDE) for (let i = 0; i < n; i++) out[at + i] = (2 * a[i]! + (b[i]! & 1)) * scale;
  else if (work.length === 2) for (let i = 0; i < n; i++) out[at + i] = (a[i]! + b[i]!) * scale;
  else {
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (const channel of work) sum += channel[i]!;
      out[at + i] = sum * scale;
    }
  }
}

interface FrameHeader {
  length: number;
  blockSize: number;
  assignment: number;
}

const RATES = [0, 88_200, 176_400, 192_000, 8000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 96_000];
const DEPTHS = [0, 8, 12, -1, 16, 20, 24, 32];

/** The frame header at `at`, or what is wrong with it. The stream must keep STREAMINFO's rate, channels and depth. */
function readFrameHeader(bytes: Uint8Array, at: number, info: FlacStreamInfo): FrameHeader | string {
  if (at + 6 > bytes.length) return `is cut short: ${TRUNCATED}`;
  if (bytes[at] !== 0xff || (bytes[at + 1]! & 0xfe) !== 0xf8) return 'does not start with a frame sync code';
  const sizeCode = bytes[at + 2]! >> 4;
  const rateCode = bytes[at + 2]! & 0x0f;
  const assignment = bytes[at + 3]! >> 4;
  const depthCode = (bytes[at + 3]! >> 1) & 7;
  let p = at + 4;
  // The frame or sample number, coded like UTF-8: its value is not needed, only its length.
  const lead = bytes[p]!;
  p += lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : lead < 0xf8 ? 4 : lead < 0xfc ? 5 : lead < 0xfe ? 6 : 7;
  let blockSize = sizeCode === 1 ? 192 : sizeCode <= 5 ? 576 << (sizeCode - 2) : 256 << (sizeCode - 8);
  if (sizeCode === 6) blockSize = bytes[p++]! + 1;
  else if (sizeCode === 7) {
    blockSize = ((bytes[p]! << 8) | bytes[p + 1]!) + 1;
    p += 2;
  }
  let rate = rateCode === 0 ? info.sampleRate : (RATES[rateCode] ?? 0);
  if (rateCode === 12) rate = bytes[p++]! * 1000;
  else if (rateCode === 13 || rateCode === 14) {
    rate = ((bytes[p]! << 8) | bytes[p + 1]!) * (rateCode === 14 ? 10 : 1);
    p += 2;
  }
  if (p + 1 > bytes.length) return `is cut short: ${TRUNCATED}`;
  if (crc8(bytes, at, p) !== bytes[p]) return 'fails its header CRC-8 check';
  if (sizeCode === 0 || rateCode === 15 || assignment > MID_SIDE || depthCode === 3 || (bytes[at + 3]! & 1) !== 0) return 'has a reserved code in its header';
  const channels = assignment >= LEFT_SIDE ? 2 : assignment + 1;
  const depth = depthCode === 0 ? info.bitsPerSample : DEPTHS[depthCode]!;
  if (rate !== info.sampleRate || channels !== info.channels || depth !== info.bitsPerSample) {
    return `changes the stream to ${channels} channels, ${rate} Hz, ${depth} bits (STREAMINFO: ${info.channels}, ${info.sampleRate} Hz, ${info.bitsPerSample} bits), which voxbench does not read`;
  }
  return { length: p + 1 - at, blockSize, assignment };
}

/** One subframe of `n` samples at `bits` bits into `out`, or what is wrong with it. */
function readSubframe(reader: BitReader, out: Samples, n: number, bits: number): string | null {
  const head = reader.read(8);
  if (head & 0x80) return 'has a subframe with its padding bit set';
  const type = (head >> 1) & 0x3f;
  let wasted = 0;
  if (head & 1) {
    wasted = reader.unary() + 1;
    if (wasted >= bits) return `has a subframe that wastes ${wasted} of its ${bits} bits`;
    bits -= wasted;
  }
  if (type === 0) {
    out.fill(reader.signed(bits), 0, n);
  } else if (type === 1) {
    for (let i = 0; i < n; i++) out[i] = reader.signed(bits);
  } else if (type >= 8 && type <= 12) {
    const order = type - 8;
    if (order > n) return `has a FIXED order ${order} subframe longer than its block`;
    for (let i = 0; i < order; i++) out[i] = reader.signed(bits);
    const problem = readResidual(reader, out, n, order);
    if (problem) return problem;
    restoreFixed(out, n, order);
  } else if (type >= 32) {
    const order = type - 31;
    if (order > n) return `has an LPC order ${order} subframe longer than its block`;
    for (let i = 0; i < order; i++) out[i] = reader.signed(bits);
    const precision = reader.read(4) + 1;
    const shift = reader.signed(5);
    if (precision === 16 || shift < 0) return 'has an LPC subframe with an invalid precision or shift';
    const coefs = new Int32Array(order);
    for (let i = 0; i < order; i++) coefs[i] = reader.signed(precision);
    const problem = readResidual(reader, out, n, order);
    if (problem) return problem;
    restoreLpc(out, n, coefs, shift, bits);
  } else {
    return `has a reserved subframe type (${type})`;
  }
  if (reader.overrun()) return `runs past the end of the file: ${TRUNCATED}`;
  if (wasted) for (let i = 0, unit = 2 ** wasted; i < n; i++) out[i] = out[i]! * unit;
  return null;
}

/** The Rice-coded residual after the warm-up samples, written into `out[order..n)`. */
function readResidual(reader: BitReader, out: Samples, n: number, order: number): string | null {
  const method = reader.read(2);
  if (method > 1) return 'has a reserved residual coding method';
  const paramBits = method === 0 ? 4 : 5;
  const escape = method === 0 ? 15 : 31;
  const partitionOrder = reader.read(4);
  const partitions = 1 << partitionOrder;
  const perPartition = n >> partitionOrder;
  if (perPartition << partitionOrder !== n || perPartition < order) return `has a residual partition order (${partitionOrder}) its block size cannot take`;
  for (let p = 0, i = order; p < partitions; p++) {
    const end = (p + 1) * perPartition;
    const k = reader.read(paramBits);
    if (k === escape) {
      const raw = reader.read(5);
      for (; i < end; i++) out[i] = reader.signed(raw);
    } else {
      while ((i = reader.rice(out, i, end, k)) < end && !reader.overrun()) out[i++] = zigzag((reader.unary() << k) | reader.read(k));
    }
    if (reader.overrun()) return `runs past the end of the file: ${TRUNCATED}`;
  }
  return null;
}

/** FLAC's fixed polynomial predictors, applied in place over the residual. */
function restoreFixed(s: Samples, n: number, order: number): void {
  switch (order) {
    case 1:
      for (let i = 1; i < n; i++) s[i] = s[i]! + s[i - 1]!;
      break;
    case 2:
      for (let i = 2; i < n; i++) s[i] = s[i]! + 2 * s[i - 1]! - s[i - 2]!;
      break;
    case 3:
      for (let i = 3; i < n; i++) s[i] = s[i]! + 3 * (s[i - 1]! - s[i - 2]!) + s[i - 3]!;
      break;
    case 4:
      for (let i = 4; i < n; i++) s[i] = s[i]! + 4 * (s[i - 1]! + s[i - 3]!) - 6 * s[i - 2]! - s[i - 4]!;
      break;
  }
}

/**
 * The linear predictor, applied in place over the residual. Orders up to 12 (what
 * encoders use at 48 kHz and below), when no sum can leave 32 bits (the coefficients'
 * magnitudes times the largest sample stay under 2^31, as in 16-bit audio), run in
 * int32 arithmetic with the coefficients and the last 4 or 12 samples in locals,
 * zero-padded, summed as a tree. Otherwise the sums are doubles: exact for any valid
 * stream (at most 33 + 15 + 5 bits), as libFLAC's 64-bit sums are.
 */
function restoreLpc(s: Samples, n: number, coefs: Int32Array, shift: number, bits: number): void {
  const order = coefs.length;
  let magnitude = 0;
  for (const c of coefs) magnitude += Math.abs(c);
  if (order > 12 || magnitude * 2 ** (bits - 1) >= 2 ** 31) {
    const unit = 2 ** -shift;
    for (let i = order; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < order; j++) sum += coefs[j]! * s[i - 1 - j]!;
      s[i] = s[i]! + Math.floor(sum * unit);
    }
    return;
  }
  const c = (j: number): number => (j < order ? coefs[j]! : 0);
  const h = (k: number): number => (k <= order ? s[order - k]! : 0);
  const { imul } = Math;
  if (order <= 4) {
    // The same with 4 taps, for the low orders that tonal audio gets.
    const c0 = c(0),
      c1 = c(1),
      c2 = c(2),
      c3 = c(3);
    let h1 = h(1),
      h2 = h(2),
      h3 = h(3),
      h4 = h(4);
    for (let i = order; i < n; i++) {
      const x = (s[i]! + ((((imul(c0, h1) + imul(c1, h2)) | 0) + ((imul(c2, h3) + imul(c3, h4)) | 0)) >> shift)) | 0;
      s[i] = x;
      h4 = h3;
      h3 = h2;
      h2 = h1;
      h1 = x;
    }
    return;
  }
  const c0 = c(0),
    c1 = c(1),
    c2 = c(2),
    c3 = c(3),
    c4 = c(4),
    c5 = c(5),
    c6 = c(6),
    c7 = c(7),
    c8 = c(8),
    c9 = c(9),
    c10 = c(10),
    c11 = c(11);
  let h1 = h(1),
    h2 = h(2),
    h3 = h(3),
    h4 = h(4),
    h5 = h(5),
    h6 = h(6),
    h7 = h(7),
    h8 = h(8),
    h9 = h(9),
    h10 = h(10),
    h11 = h(11),
    h12 = h(12);
  for (let i = order; i < n; i++) {
    const sum =
      (((imul(c0, h1) + imul(c1, h2)) | 0) +
        ((imul(c2, h3) + imul(c3, h4)) | 0) +
        ((imul(c4, h5) + imul(c5, h6)) | 0) +
        ((imul(c6, h7) + imul(c7, h8)) | 0) +
        ((imul(c8, h9) + imul(c9, h10)) | 0) +
        ((imul(c10, h11) + imul(c11, h12)) | 0)) |
      0;
    const x = (s[i]! + (sum >> shift)) | 0;
    s[i] = x;
    h12 = h11;
    h11 = h10;
    h10 = h9;
    h9 = h8;
    h8 = h7;
    h7 = h6;
    h6 = h5;
    h5 = h4;
    h4 = h3;
    h3 = h2;
    h2 = h1;
    h1 = x;
  }
}

/**
 * Big-endian bits from a byte array, by bit position: every read is a 32-bit load at
 * the byte that holds the next bit, shifted past the bits of it already read (so at
 * least 25 bits are at hand), and nothing is carried between reads. Loads past the
 * end give zeros; `overrun` says a read went there, checked per partition.
 */
class BitReader {
  private at = 0;
  private readonly view: DataView;
  private readonly last: number;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.last = bytes.length - 4;
  }

  seek(byte: number): void {
    this.at = byte * 8;
  }

  /** The byte after the last bit read, skipping the rest of a partly read byte. */
  alignedByte(): number {
    return (this.at + 7) >>> 3;
  }

  overrun(): boolean {
    return this.at > this.bytes.length * 8;
  }

  /** The 32 bits from bit `at`, left-aligned; those past its fourth byte are zeros. */
  private peek(at: number): number {
    const byte = at >>> 3;
    return (byte <= this.last ? this.view.getUint32(byte) : this.tail(byte)) << (at & 7);
  }

  /** `n` (0 to 32) bits as an unsigned number. */
  read(n: number): number {
    if (n > 24) return this.read(n - 16) * 65_536 + this.read(16);
    const value = n === 0 ? 0 : this.peek(this.at) >>> (32 - n);
    this.at += n;
    return value;
  }

  /** `n` (0 to 33) bits as a two's-complement number. */
  signed(n: number): number {
    if (n === 0) return 0;
    if (n === 33) return this.signed(1) * 2 ** 32 + this.read(32);
    const value = this.read(n);
    return n === 32 ? value | 0 : (value << (32 - n)) >> (32 - n);
  }

  /** The number of zero bits before the next one bit, which is consumed. */
  unary(): number {
    let zeros = 0;
    for (;;) {
      const lead = Math.clz32(this.peek(this.at));
      const valid = 32 - (this.at & 7);
      if (lead < valid) {
        this.at += lead + 1;
        return zeros + lead;
      }
      zeros += valid;
      this.at += valid;
      if (this.overrun()) return zeros;
    }
  }

  /**
   * Rice-coded values with parameter `k` into `out[from..to)`, as long as each fits in
   * the 32-bit load at its position (nearly all do): the hot loop, with no call in it.
   * Returns where it stopped; the caller reads a longer code, or one in the file's last
   * bytes, with `unary` and `read`.
   */
  rice(out: Samples, from: number, to: number, k: number): number {
    const { view, last } = this;
    let at = this.at;
    let i = from;
    for (; i < to; i++) {
      const byte = at >>> 3;
      const bit = at & 7;
      if (byte > last) break;
      const word = view.getUint32(byte) << bit;
      const lead = Math.clz32(word);
      const used = lead + 1 + k;
      if (used > 32 - bit) break;
      // The k bits after the one bit (two shifts, so that k = 0 gives 0).
      out[i] = zigzag((lead << k) | (((word << (lead + 1)) >>> (31 - k)) >>> 1));
      at += used;
    }
    this.at = at;
    return i;
  }

  /** The word at byte `p` near the end of the bytes, zeros past it. */
  private tail(p: number): number {
    const b = this.bytes;
    return ((b[p] ?? 0) << 24) | ((b[p + 1] ?? 0) << 16) | ((b[p + 2] ?? 0) << 8) | (b[p + 3] ?? 0);
  }
}

/** A folded Rice value to the residual: even values are positive, odd ones negative. */
function zigzag(u: number): number {
  return (u >>> 1) ^ -(u & 1);
}

const CRC8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
  return c;
});

/**
 * CRC-16 tables for four bytes a step: `CRC16[k * 256 + x]` is the CRC of byte x
 * followed by k zero bytes, so the four lookups of a step are independent.
 */
const CRC16 = new Uint16Array(4 * 256);
for (let x = 0; x < 256; x++) {
  let c = x << 8;
  for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x8005) & 0xffff : (c << 1) & 0xffff;
  CRC16[x] = c;
}
for (let i = 256; i < CRC16.length; i++) CRC16[i] = ((CRC16[i - 256]! << 8) & 0xffff) ^ CRC16[CRC16[i - 256]! >> 8]!;

/** FLAC's frame-header CRC-8 (polynomial 0x07) of `bytes[from..to)`. */
export function crc8(bytes: Uint8Array, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++) crc = CRC8[crc ^ bytes[i]!]!;
  return crc;
}

/** FLAC's frame CRC-16 (polynomial 0x8005) of `bytes[from..to)`; 0 when the range ends with its own CRC. */
export function crc16(bytes: Uint8Array, from: number, to: number): number {
  let crc = 0;
  let i = from;
  for (; i + 4 <= to; i += 4) {
    crc = CRC16[768 + ((crc >> 8) ^ bytes[i]!)]! ^ CRC16[512 + ((crc & 0xff) ^ bytes[i + 1]!)]! ^ CRC16[256 + bytes[i + 2]!]! ^ CRC16[bytes[i + 3]!]!;
  }
  for (; i < to; i++) crc = ((crc << 8) & 0xffff) ^ CRC16[(crc >> 8) ^ bytes[i]!]!;
  return crc;
}
