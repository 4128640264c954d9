import { lookup } from 'node:dns/promises';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import tls from 'node:tls';

/**
 * Runs the client's HTTP path once before the clock starts, as a WebSocket run's connect
 * phase does, so the first session's figures carry none of the client's start-up (5-8 ms
 * measured against a server-side stamp): the resolver's thread pool, the HTTP parser and
 * the request code compiled on first use, the trusted certificates loaded by the first TLS
 * handshake. It talks to a loopback server of its own and never to the target, whose
 * first request stays as cold or warm as the server is.
 */
export async function warmHttpClient(tlsOptions: tls.ConnectionOptions = {}): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"text":""}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: false });
  try {
    await lookup('localhost').catch(() => {});
    await new Promise<void>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent, headers: { 'content-length': '2' } }, (res) => {
        res.on('data', () => {});
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end('{}');
    });
    await tlsHello(tlsOptions);
  } finally {
    agent.destroy();
    server.close();
  }
}

/** A TLS client hello to a loopback listener that hangs up: enough to set up the client's TLS. */
async function tlsHello(options: tls.ConnectionOptions): Promise<void> {
  const listener = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  try {
    await new Promise<void>((resolve) => {
      const socket = tls.connect({ ...options, host: '127.0.0.1', port: (listener.address() as AddressInfo).port, servername: 'localhost' });
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
  } finally {
    listener.close();
  }
}
