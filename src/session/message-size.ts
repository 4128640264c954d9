/** The error code of ws for a message over its reader's `maxPayload`. */
const TOO_LARGE = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';

/**
 * What ws's frame parser (its Receiver) holds when it refuses a message: the bytes the
 * message reached with the frame that broke the limit, the limit, and whether that frame
 * was the message's last. ws keeps them private, so each is checked before use.
 */
interface ParserState {
  _totalPayloadLength?: unknown;
  _maxPayload?: unknown;
  _fin?: unknown;
}

/**
 * An error's message, or for a message over the size limit one that names the size
 * and the limit (ws's own, "Max payload size exceeded", names neither). `parser` is the
 * ws Receiver that refused it; `sender` who sent it ("server", "the client").
 */
export function errorText(err: Error & { code?: string }, parser: unknown, sender: string): string {
  const { _totalPayloadLength: size, _maxPayload: limit, _fin: last } = (parser ?? {}) as ParserState;
  if (err.code !== TOO_LARGE || typeof size !== 'number' || typeof limit !== 'number') return err.message;
  return `${sender} sent a WebSocket message of ${last ? '' : 'at least '}${bytes(size)}, over the limit of ${bytes(limit)}`;
}

const bytes = (n: number): string => `${n} bytes${n >= 1 << 20 ? ` (${(n / (1 << 20)).toFixed(1)} MiB)` : ''}`;

/** The frame parser of a ws client socket (private to ws; undefined if that changes). */
export function parserOf(socket: object): unknown {
  return (socket as { _receiver?: unknown })._receiver;
}
