import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer, type RawData } from 'ws';

/**
 * What the relay tells of one connection, in order: `opened` or `refused` once, frames
 * each way (a copy to read: the frame is already forwarded), and `closed` once. `t` is
 * taken as the frame arrives, before it is forwarded.
 */
export interface ConnectionHooks {
  opened(t: number): void;
  /** The upstream refused the upgrade with `status` (or could not be reached: `error`). */
  refused(t: number, status: number, error?: NodeJS.ErrnoException): void;
  clientFrame(t: number, data: Buffer, isBinary: boolean): void;
  serverFrame(t: number, data: Buffer, isBinary: boolean): void;
  /** Both sides are closed; `by` is the side whose close (or drop) came first. */
  closed(t: number, code: number, reason: string, by: 'client' | 'server'): void;
}

export interface RelayOptions {
  host: string;
  port: number;
  /** `ws://host:port` (or `wss://`): the client's path and query are appended as they came. */
  upstream: string;
  now(): number;
  /** A new connection's hooks; `url` is its path and query. */
  connection(request: IncomingMessage): ConnectionHooks;
  /** Upstream handshake limit, ms. */
  connectTimeoutMs: number;
  /** TLS options for a `wss://` upstream. */
  socketOptions?: WebSocket.ClientOptions;
}

export interface Relay {
  url: string;
  port: number;
  /** Open connections, both sides upgraded. */
  open(): number;
  /** Stops listening and cuts every connection (their hooks are told, by: 'client' with code 1001). */
  close(): Promise<void>;
}

/** Bytes queued toward one side before the other side's reading pauses; it resumes below half. */
export const HIGH_WATER = 1 << 20;
/** The most of a refusal's body passed on to the client. */
const REFUSAL_BODY = 64 * 1024;
/** Request headers that belong to one hop (and the handshake `ws` makes itself), never forwarded. */
const HOP_HEADERS = new Set([
  'host', 'connection', 'upgrade', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding',
  'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol', 'sec-websocket-accept', 'content-length',
]);

/**
 * A WebSocket reverse proxy that passes everything through unchanged: the path, query,
 * headers (authorization included) and subprotocols of the upgrade; text and binary
 * messages, pings and pongs; close codes and reasons; and, when the upstream refuses the
 * upgrade, its status, headers and body. Each direction has backpressure: when more than
 * HIGH_WATER bytes wait to be written to one side, the other side's socket stops being
 * read until they drain, so nothing is buffered without bound. It never reads a header
 * or payload except to copy it; the hooks read the copies.
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const upstreamBase = options.upstream.replace(/\/+$/, '');
  /** The upstream's chosen subprotocol and 101 headers, for the client's handshake. */
  const accepted = new WeakMap<IncomingMessage, { protocol: string; headers: string[] }>();
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    autoPong: false,
    clientTracking: false,
    handleProtocols: (_offered, request) => accepted.get(request)?.protocol || false,
  });
  wss.on('headers', (headers, request) => headers.push(...(accepted.get(request)?.headers ?? [])));
  const live = new Set<() => void>();
  let upgraded = 0;

  const http: Server = createServer((_req, res) => res.writeHead(426, { 'content-type': 'text/plain' }).end('voxbench proxy: WebSocket upgrades only\n'));
  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const hooks = options.connection(request);
    const protocols = String(request.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
    const upstream = new WebSocket(upstreamBase + (request.url ?? '/'), protocols, {
      headers: forwardedHeaders(request.rawHeaders),
      perMessageDeflate: false,
      autoPong: false,
      followRedirects: false,
      handshakeTimeout: options.connectTimeoutMs,
      ...options.socketOptions,
    });
    let settled = false;
    const abandon = (): void => {
      if (settled) return;
      settled = true;
      upstream.terminate();
      hooks.closed(options.now(), 1006, 'the client left before the server accepted the upgrade', 'client');
    };
    socket.on('error', () => socket.destroy());
    socket.once('close', abandon);
    upstream.on('upgrade', (response) => {
      const headers: string[] = [];
      for (let i = 0; i < response.rawHeaders.length; i += 2) {
        const name = response.rawHeaders[i]!;
        if (!HOP_HEADERS.has(name.toLowerCase())) headers.push(`${name}: ${response.rawHeaders[i + 1]}`);
      }
      accepted.set(request, { protocol: String(response.headers['sec-websocket-protocol'] ?? ''), headers });
    });
    upstream.on('unexpected-response', (req, response) => {
      settled = true;
      socket.off('close', abandon);
      hooks.refused(options.now(), response.statusCode ?? 0);
      passRefusal(socket, response, () => req.destroy());
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return; // after the upgrade, the close tells
      settled = true;
      socket.off('close', abandon);
      const status = err.message.includes('timed out') ? 504 : 502;
      hooks.refused(options.now(), status, err);
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: text/plain\r\nContent-Length: ${STATUS_CODES[status]!.length + 1}\r\nConnection: close\r\n\r\n${STATUS_CODES[status]}\n`);
    });
    upstream.on('open', () => {
      settled = true;
      socket.off('close', abandon);
      wss.handleUpgrade(request, socket, head, (client) => {
        upgraded++;
        hooks.opened(options.now());
        const cut = (): void => {
          client.close(1001, 'proxy shutting down');
          upstream.close(1001, 'proxy shutting down');
          setTimeout(() => (client.terminate(), upstream.terminate()), 1000).unref();
        };
        live.add(cut);
        pipe(client, upstream, options.now, hooks, () => {
          upgraded--;
          live.delete(cut);
        });
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    port,
    open: () => upgraded,
    close: async () => {
      for (const cut of live) cut();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeIdleConnections();
      });
      while (live.size > 0) await new Promise((r) => setTimeout(r, 10));
    },
  };
}

/** Both directions of one upgraded connection; `done` once both sides are closed. */
function pipe(client: WebSocket, upstream: WebSocket, now: () => number, hooks: ConnectionHooks, done: () => void): void {
  let first: { t: number; code: number; reason: string; by: 'client' | 'server' } | undefined;
  let closedSides = 0;
  const direction = (from: WebSocket, to: WebSocket, side: 'client' | 'server', frame: (t: number, data: Buffer, isBinary: boolean) => void): void => {
    let queued = 0;
    let paused = false;
    const written = (bytes: number) => (): void => {
      queued -= bytes;
      if (paused && queued < HIGH_WATER / 2) {
        paused = false;
        from.resume();
      }
    };
    const queue = (bytes: number): (() => void) => {
      queued += bytes;
      if (!paused && queued > HIGH_WATER) {
        paused = true;
        from.pause();
      }
      return written(bytes);
    };
    from.on('message', (data: RawData, isBinary: boolean) => {
      const t = now();
      const bytes = data as Buffer;
      if (to.readyState === WebSocket.OPEN) to.send(bytes, { binary: isBinary }, queue(bytes.length));
      frame(t, bytes, isBinary);
    });
    from.on('ping', (data: Buffer) => {
      if (to.readyState === WebSocket.OPEN) to.ping(data, undefined, queue(data.length));
    });
    from.on('pong', (data: Buffer) => {
      if (to.readyState === WebSocket.OPEN) to.pong(data, undefined, queue(data.length));
    });
    from.on('error', () => {}); // the close that follows tells
    from.on('close', (code: number, reason: Buffer) => {
      first ??= { t: now(), code, reason: reason.toString(), by: side };
      passClose(to, code, reason);
      if (++closedSides === 2) {
        done();
        hooks.closed(first.t, first.code, first.reason, first.by);
      }
    });
  };
  direction(client, upstream, 'client', hooks.clientFrame.bind(hooks));
  direction(upstream, client, 'server', hooks.serverFrame.bind(hooks));
}

/** Closes `to` as the other side closed: the same code and reason; none for 1005; a cut for 1006 and codes no endpoint may send. */
function passClose(to: WebSocket, code: number, reason: Buffer): void {
  if (to.readyState === WebSocket.CLOSED) return;
  if (code === 1005) return to.close();
  const sendable = (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
  if (!sendable) return to.terminate();
  to.close(code, reason);
}

/** Passes an upstream's refusal of the upgrade to the client: its status, its headers and (up to REFUSAL_BODY) its body. */
function passRefusal(socket: Duplex, response: IncomingMessage, release: () => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  const finish = (): void => {
    release();
    if (socket.destroyed) return;
    const body = Buffer.concat(chunks).subarray(0, REFUSAL_BODY);
    const lines = [`HTTP/1.1 ${response.statusCode} ${response.statusMessage ?? STATUS_CODES[response.statusCode ?? 500] ?? ''}`];
    for (let i = 0; i < response.rawHeaders.length; i += 2) {
      const name = response.rawHeaders[i]!;
      if (!HOP_HEADERS.has(name.toLowerCase())) lines.push(`${name}: ${response.rawHeaders[i + 1]}`);
    }
    lines.push(`Content-Length: ${body.length}`, 'Connection: close');
    socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  };
  response.on('data', (chunk: Buffer) => {
    if (length < REFUSAL_BODY) chunks.push(chunk);
    length += chunk.length;
  });
  response.once('end', finish);
  response.once('error', finish);
}

/** The client's upgrade headers, names as sent, less those of one hop; a repeated header joined as HTTP allows (cookies with `; `). */
function forwardedHeaders(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (HOP_HEADERS.has(name.toLowerCase())) continue;
    const value = raw[i + 1]!;
    const prior = headers[name];
    headers[name] = prior === undefined ? value : `${prior}${name.toLowerCase() === 'cookie' ? '; ' : ', '}${value}`;
  }
  return headers;
}
