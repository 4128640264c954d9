import type { Socket } from 'node:net';

/**
 * WebSocket frames written straight to the socket, for what `ws` will not send: close
 * codes RFC 6455 reserves, and a frame too large to build in memory. Server frames are
 * unmasked, so the header is all there is to it.
 */
function header(opcode: number, length: number): Buffer {
  const fin = 0x80 | opcode;
  if (length < 126) return Buffer.from([fin, length]);
  if (length < 65_536) {
    const h = Buffer.from([fin, 126, 0, 0]);
    h.writeUInt16BE(length, 2);
    return h;
  }
  const h = Buffer.alloc(10);
  h[0] = fin;
  h[1] = 127;
  h.writeBigUInt64BE(BigInt(length), 2);
  return h;
}

/** Writes a close frame with any code and reason, then ends the connection. */
export function writeCloseFrame(socket: Socket, code: number, reason: string): void {
  const payload = Buffer.concat([Buffer.from([code >> 8, code & 0xff]), Buffer.from(reason)]);
  socket.end(Buffer.concat([header(0x8, payload.length), payload]));
}

const PIECE = Buffer.alloc(64 * 1024, 'x');

/**
 * Writes one text frame of `bytes` bytes: `head`, filler, `tail`. The filler goes out in
 * 64 KiB pieces as the socket drains, so a frame of any size costs the server one piece
 * of memory, and a client that refuses it on its header costs it next to nothing.
 * `done` runs once the frame is written; never if the connection goes first.
 */
export function writeLargeTextFrame(socket: Socket, bytes: number, head: string, tail: string, done: () => void): void {
  const ends = Buffer.byteLength(head) + Buffer.byteLength(tail);
  let filler = Math.max(0, bytes - ends);
  const open = (): boolean => !socket.destroyed && !socket.writableEnded;
  socket.write(Buffer.concat([header(0x1, ends + filler), Buffer.from(head)]));
  const pump = (): void => {
    while (filler > 0) {
      if (!open()) return;
      const n = Math.min(filler, PIECE.length);
      filler -= n;
      if (!socket.write(n === PIECE.length ? PIECE : PIECE.subarray(0, n))) return void socket.once('drain', pump);
    }
    if (!open()) return;
    socket.write(tail);
    done();
  };
  pump();
}
