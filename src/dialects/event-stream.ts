import { ProtocolViolation, type BodyDecoder, type DecodedEvent } from './dialect.js';

/** The most bytes of one server-sent event held while waiting for its end; a longer one is a protocol violation. */
export const SSE_EVENT_LIMIT = 16 * 1024 * 1024;

/** Reads a `text/event-stream` body chunk by chunk: `chunk` gives the data of each event it completes, `end` of the last one. */
export interface EventStream<T = string> {
  chunk(data: Buffer): T[];
  end(): T[];
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const DATA = Buffer.from('data');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LF_BYTES = Buffer.from([LF]);
const EMPTY = Buffer.alloc(0);

/**
 * The event-stream format as the WHATWG spec reads it, for the data of each event:
 * UTF-8 decoded (a character split between two network reads stays whole), lines ended
 * by CRLF, LF or CR (a CRLF split between reads is one ending), `:` comments and fields
 * other than `data` skipped, an event's `data` lines joined by LF, and a blank line
 * ending it. Unlike the spec, an event the body ends without its blank line is kept:
 * servers end a stream with `data: [DONE]\n`.
 *
 * What an event holds counts toward `limit`: its `data` lines as read, their field names
 * and line ends included (so endless empty `data:` lines are refused too), and the line
 * being read. The chunk that passes it throws, so a hostile server that never ends an
 * event costs about one limit of memory; comments and other fields are not kept.
 */
export function eventStream(limit = SSE_EVENT_LIMIT): EventStream {
  const bytes = eventByteStream(limit);
  return { chunk: (data) => bytes.chunk(data).map(utf8), end: () => bytes.end().map(utf8) };
}

const utf8 = (data: Buffer): string => data.toString('utf8');

/**
 * The same parser, giving each event's data as its UTF-8 bytes. Lines are found in the
 * bytes (CR and LF never occur inside a UTF-8 character), so an event is decoded once,
 * whole, by whoever reads it, or not at all: the speech stream's audio deltas are read
 * off the bytes (bench/receive-event.ts). A line within one read is a view of it, not a copy.
 */
export function eventByteStream(limit = SSE_EVENT_LIMIT): EventStream<Buffer> {
  /** The line being read: its pieces so far, from earlier reads. */
  const pieces: Buffer[] = [];
  let lineBytes = 0;
  const data: Buffer[] = [];
  let dataBytes = 0;
  let started = false;
  /** The last chunk ended in CR: an LF opening the next one ends no second line. */
  let afterCr = false;

  /** Holds `chunk[from, to)`, the line read so far. */
  const hold = (chunk: Buffer, from: number, to: number): void => {
    if (from === to) return;
    lineBytes += to - from;
    if (dataBytes + lineBytes > limit) throw new ProtocolViolation(`a server-sent event passed ${limit} bytes before the blank line that ends it`);
    pieces.push(chunk.subarray(from, to));
  };
  const dispatch = (events: Buffer[]): void => {
    if (data.length > 0) events.push(data.length === 1 ? data[0]! : Buffer.concat(data.flatMap((d, i) => (i === 0 ? [d] : [LF_BYTES, d]))));
    data.length = 0;
    dataBytes = 0;
  };
  const endLine = (events: Buffer[]): void => {
    let line = pieces.length === 0 ? EMPTY : pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    const bytes = lineBytes;
    pieces.length = 0;
    lineBytes = 0;
    if (!started) {
      // The stream's first line may open with a byte order mark, which is not part of it.
      started = true;
      if (line.length >= 3 && line[0] === BOM[0] && line[1] === BOM[1] && line[2] === BOM[2]) line = line.subarray(3);
    }
    if (line.length === 0) return dispatch(events);
    if (line.length < 4 || line.compare(DATA, 0, 4, 0, 4) !== 0) return;
    const value = line[4] === COLON ? line.subarray(line[5] === SPACE ? 6 : 5) : line.length === 4 ? line.subarray(4) : undefined;
    if (value !== undefined) {
      data.push(value);
      dataBytes += bytes + 1;
    }
  };
  const read = (chunk: Buffer): Buffer[] => {
    const events: Buffer[] = [];
    let at = 0;
    if (afterCr && chunk.length > 0) {
      afterCr = false;
      if (chunk[0] === LF) at++;
    }
    // The next LF and CR (the length when there is none), each searched for again only once passed: linear in the chunk.
    const next = (byte: number, from: number): number => {
      const found = chunk.indexOf(byte, from);
      return found < 0 ? chunk.length : found;
    };
    let lf = -1;
    let cr = -1;
    while (at < chunk.length) {
      if (lf < at) lf = next(LF, at);
      if (cr < at) cr = next(CR, at);
      const end = Math.min(lf, cr);
      if (end === chunk.length) {
        hold(chunk, at, end);
        break;
      }
      hold(chunk, at, end);
      endLine(events);
      at = end + 1;
      if (end === cr) {
        if (at === chunk.length) afterCr = true;
        else if (chunk[at] === LF) at++;
      }
    }
    return events;
  };
  return {
    chunk: read,
    end() {
      const events: Buffer[] = [];
      if (pieces.length > 0) endLine(events);
      dispatch(events);
      return events;
    },
  };
}

/** A body decoder for a server-sent event stream: `interpret` turns the data of each event into the events recorded. */
export function eventStreamDecoder(interpret: (data: string) => DecodedEvent[]): BodyDecoder {
  return eventBytesDecoder((data) => interpret(utf8(data)));
}

/** The same, `interpret` given each event's data as its UTF-8 bytes. */
export function eventBytesDecoder(interpret: (data: Buffer) => DecodedEvent[]): BodyDecoder {
  const stream = eventByteStream();
  return {
    chunk: (bytes) => stream.chunk(bytes).flatMap(interpret),
    end: () => stream.end().flatMap(interpret),
  };
}
