import { StringDecoder } from 'node:string_decoder';
import { ProtocolViolation, type BodyDecoder, type DecodedEvent } from './dialect.js';

/** The most bytes of one server-sent event held while waiting for its end; a longer one is a protocol violation. */
export const SSE_EVENT_LIMIT = 16 * 1024 * 1024;

/** Reads a `text/event-stream` body chunk by chunk: `chunk` gives the data of each event it completes, `end` of the last one. */
export interface EventStream {
  chunk(data: Buffer): string[];
  end(): string[];
}

/**
 * The event-stream format as the WHATWG spec reads it, for the data of each event:
 * UTF-8 decoded across chunk boundaries (a character split between two network reads
 * stays whole), lines ended by CRLF, LF or CR (a CRLF split between reads is one
 * ending), `:` comments and fields other than `data` skipped, an event's `data` lines
 * joined by LF, and a blank line ending it. Unlike the spec, an event the body ends
 * without its blank line is kept: servers end a stream with `data: [DONE]\n`.
 *
 * What an event holds counts toward `limit`: its `data` lines as read, their field names
 * and line ends included (so endless empty `data:` lines are refused too), and the line
 * being read. The chunk that passes it throws, so a hostile server that never ends an
 * event costs about one limit of memory; comments and other fields are not kept.
 */
export function eventStream(limit = SSE_EVENT_LIMIT): EventStream {
  const text = new StringDecoder('utf8');
  let line = '';
  let lineBytes = 0;
  const data: string[] = [];
  let dataBytes = 0;
  let started = false;
  /** The last chunk ended in CR: an LF opening the next one ends no second line. */
  let afterCr = false;

  const hold = (piece: string): void => {
    line += piece;
    lineBytes += Buffer.byteLength(piece);
    if (dataBytes + lineBytes > limit) throw new ProtocolViolation(`a server-sent event passed ${limit} bytes before the blank line that ends it`);
  };
  const dispatch = (events: string[]): void => {
    if (data.length > 0) events.push(data.join('\n'));
    data.length = 0;
    dataBytes = 0;
  };
  const endLine = (events: string[]): void => {
    if (line === '') dispatch(events);
    else if (line.startsWith('data')) {
      const value = line[4] === ':' ? line.slice(line[5] === ' ' ? 6 : 5) : line.length === 4 ? '' : undefined;
      if (value !== undefined) {
        data.push(value);
        dataBytes += lineBytes + 1;
      }
    }
    line = '';
    lineBytes = 0;
  };
  const read = (decoded: string): string[] => {
    const events: string[] = [];
    let at = 0;
    if (!started && decoded !== '') {
      started = true;
      if (decoded[0] === '\uFEFF') at = 1;
    }
    if (afterCr && decoded !== '') {
      afterCr = false;
      if (decoded[at] === '\n') at++;
    }
    // The next LF and CR (the length when there is none), each searched for again only once passed: linear in the chunk.
    const next = (char: string, from: number): number => {
      const found = decoded.indexOf(char, from);
      return found < 0 ? decoded.length : found;
    };
    let lf = -1;
    let cr = -1;
    while (at < decoded.length) {
      if (lf < at) lf = next('\n', at);
      if (cr < at) cr = next('\r', at);
      const end = Math.min(lf, cr);
      if (end === decoded.length) {
        hold(decoded.slice(at));
        break;
      }
      hold(decoded.slice(at, end));
      endLine(events);
      at = end + 1;
      if (end === cr) {
        if (at === decoded.length) afterCr = true;
        else if (decoded[at] === '\n') at++;
      }
    }
    return events;
  };
  return {
    chunk: (bytes) => read(text.write(bytes)),
    end() {
      const events = read(text.end());
      if (line !== '') endLine(events);
      dispatch(events);
      return events;
    },
  };
}

/** A body decoder for a server-sent event stream: `interpret` turns the data of each event into the events recorded. */
export function eventStreamDecoder(interpret: (data: string) => DecodedEvent[]): BodyDecoder {
  const stream = eventStream();
  return {
    chunk: (bytes) => stream.chunk(bytes).flatMap(interpret),
    end: () => stream.end().flatMap(interpret),
  };
}
