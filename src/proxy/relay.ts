import { createServer, request as httpRequest, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { FRAME_LIMITS } from '../session/bounds.js';
import { SlicedWork } from '../runtime/sliced-work.js';
import { frameTap, type Tap } from './frame-tap.js';

/**
 * What the relay tells of one connection, in order: `opened` or `refused` once, frames
 * each way (read from a copy of the bytes, already forwarded), and `closed` once. `t` is
 * taken as the frame's last bytes arrive, before they are forwarded.
 */
export interface ConnectionHooks {
  opened(t: number): void;
  /** The upstream refused the upgrade with `status` (or could not be reached: `error`). */
  refused(t: number, status: number, error?: NodeJS.ErrnoException): void;
  clientFrame(t: number, data: Buffer, isBinary: boolean): void;
  serverFrame(t: number, data: Buffer, isBinary: boolean): void;
  /** The frames of one side cannot be read (or metering them threw): no more frames are told; forwarding goes on. */
  unreadable?(t: number, side: 'client' | 'server', message: string): void;
  /** Both sides are closed; `by` is the side whose close frame (or drop, 1006) came first. */
  closed(t: number, code: number, reason: string, by: 'client' | 'server'): void;
}

export interface RelayOptions {
  host: string;
  port: number;
  /** `ws://host:port` (or `wss://`): the client's path and query are appended as they came. */
  upstream: string;
  now: () => number;
  /** A new connection's hooks; `url` is its path and query. */
  connection(request: IncomingMessage): ConnectionHooks;
  /** Upstream handshake limit, ms. */
  connectTimeoutMs: number;
  /** TLS settings for a `wss://` upstream. */
  tls?: { ca?: string; rejectUnauthorized?: boolean };
}

export interface Relay {
  url: string;
  port: number;
  /** Open connections, both sides upgraded. */
  open(): number;
  /** Meters at once what was forwarded and still waits in the metering queue, so the hooks have heard everything that passed. */
  flush(): void;
  /** Stops listening and cuts every connection (their hooks are told, by: 'client' with code 1001). */
  close(): Promise<void>;
}

/** The most of a refusal's body passed on to the client. */
const REFUSAL_BODY = 64 * 1024;
/** How long one side may stay open once the other has closed its socket. */
const CLOSE_GRACE_MS = 30_000;
/** Request headers that belong to one hop, never forwarded; extensions too, so that no compression is negotiated and every frame stays readable. */
const HOP_REQUEST_HEADERS = new Set([
  'host',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'content-length',
  'sec-websocket-extensions',
]);
/** Refusal headers that belong to one hop: the proxy sets its own length and closes. */
const HOP_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);
/** The most metering work left queued (each a chunk already forwarded): past it, the queue is done at once, so memory stays bounded when metering falls behind. */
const METERING_BACKLOG = 1024;

/**
 * Every connection's metering, in arrival order: it runs after the event loop's socket
 * reads, in slices of half a millisecond, so reading a frame never holds up forwarding
 * the frames read in the same turn, and a frame that arrives meanwhile waits at most a slice.
 */
const metering = new SlicedWork<() => void>((read) => read());
function meter(read: () => void): void {
  metering.push(read);
  if (metering.length > METERING_BACKLOG) metering.flush();
}

/**
 * A WebSocket reverse proxy that passes every byte through unchanged. The client's
 * upgrade request goes to the upstream as it came (path, query, headers with
 * authorization, its own Sec-WebSocket-Key and subprotocols), less hop headers and
 * Sec-WebSocket-Extensions; the upstream's answer comes back verbatim: its 101, or its
 * refusal's status, headers and body. Then the two sockets are joined, so each frame
 * passes byte-identical (no decoding, re-masking or copying on the way), with
 * backpressure both ways: a side whose socket cannot take more stops the other side
 * being read, so nothing is buffered without bound. After forwarding, each direction's
 * bytes go to a passive frame parser (frame-tap.ts) for the hooks, off the forwarding
 * path (`meter`); socket ends and closes are told in the same order.
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const upstreamBase = options.upstream.replace(/\/+$/, '').replace(/^ws/, 'http');
  const live = new Set<() => void>();

  const http: Server = createServer((_req, res) => res.writeHead(426, { 'content-type': 'text/plain' }).end('voxbench proxy: WebSocket upgrades only\n'));
  http.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.pause(); // the client's first frames wait for the server's answer
    const hooks = options.connection(request);
    const secure = upstreamBase.startsWith('https:');
    const upstream = (secure ? httpsRequest : httpRequest)(upstreamBase + (request.url ?? '/'), {
      method: 'GET',
      headers: forwardedHeaders(request.rawHeaders),
      agent: false,
      ...(secure ? options.tls : {}),
    });
    let settled = false;
    const settle = (): void => {
      settled = true;
      clearTimeout(timer);
      socket.off('close', abandon);
    };
    const timer = setTimeout(
      () => upstream.destroy(Object.assign(new Error('the server did not answer the upgrade in time'), { code: 'ETIMEDOUT' })),
      options.connectTimeoutMs,
    );
    const abandon = (): void => {
      if (settled) return;
      settle();
      upstream.destroy();
      hooks.closed(options.now(), 1006, 'the client left before the server accepted the upgrade', 'client');
    };
    socket.on('error', () => socket.destroy());
    socket.once('close', abandon);
    upstream.on('upgrade', (response: IncomingMessage, server: Socket, serverHead: Buffer) => {
      const t = options.now();
      if (socket.destroyed) {
        server.destroy(); // the client left as the server accepted
        return abandon();
      }
      settle();
      server.on('error', () => server.destroy());
      socket.write(responseHead(response));
      hooks.opened(t);
      const cut = join(socket, server, { client: head, server: serverHead }, t, options.now, hooks, () => live.delete(cut));
      live.add(cut);
    });
    upstream.on('response', (response: IncomingMessage) => {
      settle();
      hooks.refused(options.now(), response.statusCode ?? 0);
      passRefusal(socket, response, () => upstream.destroy());
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return; // after the upgrade, the sockets tell
      settle();
      const status = err.code === 'ETIMEDOUT' ? 504 : 502;
      hooks.refused(options.now(), status, err);
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: text/plain\r\nContent-Length: ${STATUS_CODES[status]!.length + 1}\r\nConnection: close\r\n\r\n${STATUS_CODES[status]}\n`,
      );
    });
    upstream.end();
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    port,
    open: () => live.size,
    flush: () => metering.flush(),
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

interface Close {
  t: number;
  code: number;
  reason: string;
  by: 'client' | 'server';
}

/**
 * Joins an upgraded client socket to its server socket, each direction forwarded then
 * read by a tap; `done` once both sockets are closed. Returns the cut, for shutdown.
 */
function join(
  client: Socket,
  server: Socket,
  heads: { client: Buffer; server: Buffer },
  t0: number,
  now: () => number,
  hooks: ConnectionHooks,
  done: () => void,
): () => void {
  client.setNoDelay(true);
  server.setNoDelay(true);
  let first: Close | undefined;
  let closedSockets = 0;
  const direction = (from: Socket, to: Socket, side: 'client' | 'server'): ((t: number, chunk: Buffer) => void) => {
    const tap: Tap = frameTap(side === 'client', FRAME_LIMITS.messageBytes, {
      message: side === 'client' ? hooks.clientFrame.bind(hooks) : hooks.serverFrame.bind(hooks),
      close: (t, code, reason) => (first ??= { t, code, reason, by: side }),
      unreadable: (t, message) => hooks.unreadable?.(t, side, message),
    });
    const forward = (t: number, chunk: Buffer): void => {
      if (!to.write(chunk)) from.pause();
      // The client's frames are unmasked in place: a chunk the socket still holds (written only in part, under backpressure) is read from a copy.
      const bytes = side === 'client' && to.writableLength > 0 ? Buffer.from(chunk) : chunk;
      meter(() => tap(t, bytes));
    };
    to.on('drain', () => from.resume());
    from.on('data', (chunk: Buffer) => forward(now(), chunk));
    // A socket ended or cut without a close frame first is a drop (1006) by its side.
    from.once('end', () => {
      const t = now();
      meter(() => (first ??= { t, code: 1006, reason: '', by: side }));
      to.end();
    });
    from.once('close', (hadError: boolean) => {
      const t = now();
      if (hadError) to.destroy();
      else if (!to.destroyed) {
        const grace = setTimeout(() => to.destroy(), CLOSE_GRACE_MS).unref();
        to.once('close', () => clearTimeout(grace));
      }
      meter(() => {
        first ??= { t, code: 1006, reason: '', by: side };
        if (++closedSockets < 2) return;
        done();
        hooks.closed(first.t, first.code, first.reason, first.by);
      });
    });
    return forward;
  };
  const toClient = direction(server, client, 'server');
  const toServer = direction(client, server, 'client');
  client.resume();
  server.resume();
  // What each side sent with its half of the handshake goes first (reading resumes on a later tick), paused by backpressure like the rest.
  if (heads.server.length > 0) toClient(t0, heads.server);
  if (heads.client.length > 0) toServer(t0, heads.client);
  return () => {
    const t = now();
    meter(() => (first ??= { t, code: 1001, reason: 'proxy shutting down', by: 'client' }));
    client.destroy();
    server.destroy();
  };
}

/** The upstream's answer to an upgrade as it came: status line and headers, names and order kept. */
function responseHead(response: IncomingMessage): string {
  const lines = [`HTTP/1.1 ${response.statusCode} ${response.statusMessage ?? ''}`];
  for (let i = 0; i < response.rawHeaders.length; i += 2) lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Passes an upstream's refusal of the upgrade to the client: its status, its headers and (up to REFUSAL_BODY) its body. */
function passRefusal(socket: Socket, response: IncomingMessage, release: () => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  const finish = (): void => {
    release();
    if (socket.destroyed) return;
    const body = Buffer.concat(chunks).subarray(0, REFUSAL_BODY);
    const lines = [`HTTP/1.1 ${response.statusCode} ${response.statusMessage ?? STATUS_CODES[response.statusCode ?? 500] ?? ''}`];
    for (let i = 0; i < response.rawHeaders.length; i += 2) {
      const name = response.rawHeaders[i]!;
      if (!HOP_RESPONSE_HEADERS.has(name.toLowerCase())) lines.push(`${name}: ${response.rawHeaders[i + 1]}`);
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

/** The client's upgrade headers, names as sent, less those of one hop; a repeated header stays repeated (cookies are joined with `; `). */
function forwardedHeaders(raw: string[]): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  const names = new Map<string, string>();
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (HOP_REQUEST_HEADERS.has(lower)) continue;
    if (!names.has(lower)) names.set(lower, raw[i]!);
    (headers[names.get(lower)!] ??= []).push(raw[i + 1]!);
  }
  return headers;
}
