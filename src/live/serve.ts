import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsEndpoint {
  /** `http://host:port`: `/metrics` and `/healthz` below it. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Where `--metrics-port` listens: `[host:]port`, on loopback unless a host is given. */
export interface Listen {
  host: string;
  port: number;
}

/**
 * Serves `/metrics` in Prometheus's text format and `/healthz` (200 while the process
 * runs), for a scraper or a Kubernetes probe. Anything else is 404.
 */
export async function serveMetrics(registry: Registry, { host, port }: Listen): Promise<MetricsEndpoint> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    if (path === '/healthz') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    if (path !== '/metrics') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics or /healthz\n');
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    port: bound,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Parses `[host:]port` (`9464`, `0.0.0.0:9464`, `[::]:9464`); null when it is neither. */
export function parseListen(value: string, defaultHost = '127.0.0.1'): Listen | null {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(value.trim());
  if (!match) return null;
  const port = Number(match[2]);
  if (port > 65_535) return null;
  const host = match[1] === undefined ? defaultHost : match[1].replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}
