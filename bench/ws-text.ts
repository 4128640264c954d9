import type { RawData } from 'ws';

/** A ws message as text, whichever shape it arrived in: a Buffer, an ArrayBuffer, or the fragments of one message. */
export function messageText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString();
  return Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString();
}
