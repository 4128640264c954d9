import WebSocket from 'ws';
import type { Failure, WebSocketTransport } from '../timeline/types.js';
import type { Clock } from '../runtime/clock.js';
import { SlicedWork } from '../runtime/sliced-work.js';

/** After the session, how long a server has to answer the closing handshake before the socket is cut. */
const CLOSE_GRACE_MS = 1000;
/** Pongs owed to the server's pings before the client gives up on a ping flood (as `ws` itself does). */
export const PONG_BACKLOG = 60;
/** Close codes `ws` sends when it rejects a frame (RFC 6455 section 7.4.1); any other rejection is a protocol error, 1002. */
const LIBRARY_CLOSE_CODES: Record<string, number> = { WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 1009, WS_ERR_INVALID_UTF8: 1007 };

/** The close code `ws` sent for a socket error, when the error is its rejection of a malformed frame. */
export function libraryCloseCode(err: NodeJS.ErrnoException): number | undefined {
  return err.code?.startsWith('WS_ERR_') ? (LIBRARY_CLOSE_CODES[err.code] ?? 1002) : undefined;
}

/** A close the server made before the session was over: a normal close (1000, or none given) or an abnormal one. */
export function serverCloseFailure(code: number, reason: Buffer): Omit<Failure, 'stage'> {
  if (code === 1000 || code === 1005) {
    return { class: 'server_closed', closeCode: code, message: `server closed the session (code ${code}) before it was finished` };
  }
  return {
    class: 'abnormal_close',
    closeCode: code,
    message: `connection closed abnormally with code ${code}${reason.length ? ` (${reason.toString()})` : ''}`,
  };
}

export const PING_FLOOD: Omit<Failure, 'stage'> = {
  class: 'protocol_violation',
  message: `server sent pings faster than they could be answered (${PONG_BACKLOG} pongs owed); the client closed the connection`,
};

/**
 * Closes the socket of a session that is over; resolves once its timeline is final. An
 * open socket goes on delivering its frames to the session until its closing handshake
 * starts: after one more poll of the event loop for I/O (an immediate queued from an
 * immediate runs after it), so a frame that reached the machine before the close is read
 * and recorded however late a loaded loop gets to it, then in a gap between the other
 * sessions' deadlines. The close is recorded as the client's when its frame goes. Any
 * other socket is cut at once. From then on its events no longer reach the session.
 */
export function closeAfterSession(ws: WebSocket, transport: WebSocketTransport, clock: Clock): Promise<void> {
  const stop = (): void => {
    ws.removeAllListeners();
    ws.on('error', () => {});
  };
  if (ws.readyState !== WebSocket.OPEN) {
    stop();
    ws.terminate();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const closing = (): void => {
      transport.close ??= { t: clock.now(), code: 1000, reason: '', by: 'client' };
      stop();
      resolve();
    };
    setImmediate(() => closings.push({ ws, closing }));
  });
}

/**
 * Closing handshakes of sessions that are over, done in slices (the close frame, then
 * the server's answer and the socket's end to read), so that when many sessions end
 * at once (a level's lanes end within one chunk period) their closes do not delay the
 * last chunks of the sessions still streaming. The close is recorded when it is
 * decided; the frame follows in a gap between the deadlines of the sessions still
 * streaming, at most MAX_WAIT_MS later.
 */
const closings = new SlicedWork<{ ws: WebSocket; closing: () => void }>(({ ws, closing }) => {
  closing();
  if (ws.readyState !== WebSocket.OPEN) return;
  ws.close(1000);
  // A server that ignores the closing handshake must not keep the process alive (ws waits 30 s).
  const grace = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
  ws.once('close', () => clearTimeout(grace));
});
