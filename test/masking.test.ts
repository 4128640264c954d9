import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { monotonicClock } from '../src/runtime/clock.js';
import { vllmDialect } from '../src/dialects/vllm/client.js';
import { DEFAULT_TIMEOUTS } from '../src/session/runner.js';
import { runWebSocketSession } from '../src/session/ws-runner.js';

/**
 * A bare TCP server that accepts the WebSocket upgrade by hand, sends vLLM's
 * `session.created`, and reports the masking key of the client's first frame (the
 * bytes a WebSocket library would hide), then closes.
 */
async function maskReader(): Promise<{ url: string; nextMask: () => Promise<Buffer> }> {
  const masks: Array<(mask: Buffer) => void> = [];
  const server = createServer((socket) => {
    let buffered = Buffer.alloc(0);
    let upgraded = false;
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      if (!upgraded) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const key = /sec-websocket-key: (\S+)/i.exec(buffered.subarray(0, end).toString())![1]!;
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
        const created = Buffer.from(JSON.stringify({ type: 'session.created', id: 's' }));
        socket.write(Buffer.concat([Buffer.from([0x81, created.length]), created]));
        upgraded = true;
        buffered = buffered.subarray(end + 4);
      }
      // A masked client frame: 2 header bytes, 2 or 8 more for the length, then the 4-byte key.
      if (buffered.length < 2) return;
      const lengthBytes = (buffered[1]! & 0x7f) === 126 ? 2 : (buffered[1]! & 0x7f) === 127 ? 8 : 0;
      if (buffered.length < 2 + lengthBytes + 4) return;
      masks.shift()?.(buffered.subarray(2 + lengthBytes, 6 + lengthBytes));
      socket.destroy();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise((resolve) => server.close(resolve)));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/realtime`, nextMask: () => new Promise((resolve) => masks.push(resolve)) };
}

describe('client frame masking', () => {
  const dialect = vllmDialect({ model: 'm' });
  const session = (url: string, maskFrames: boolean): Promise<unknown> =>
    runWebSocketSession({
      url,
      headers: {},
      dialect,
      inputs: [],
      pace: { kind: 'none' },
      plannedStartMs: 0,
      timeouts: DEFAULT_TIMEOUTS,
      clock: monotonicClock(),
      maskFrames,
    });

  it('masks with the all-zero key by default, and with random keys with --mask-frames', async () => {
    const server = await maskReader();
    const zero = server.nextMask();
    await session(server.url, false);
    assert.deepEqual([...(await zero)], [0, 0, 0, 0]);
    const keys: Buffer[] = [];
    for (let i = 0; i < 3; i++) {
      const random = server.nextMask();
      await session(server.url, true);
      keys.push(await random);
    }
    // Three random 32-bit keys, none zero and not all alike (a chance of about 2^-31 to fail).
    assert.ok(
      keys.every((k) => !k.equals(Buffer.alloc(4))) && new Set(keys.map((k) => k.toString('hex'))).size > 1,
      keys.map((k) => k.toString('hex')).join(' '),
    );
    // Random keys elsewhere in the process leave the next zero-key session's key zero.
    const again = server.nextMask();
    await session(server.url, false);
    assert.deepEqual([...(await again)], [0, 0, 0, 0]);
  });
});
