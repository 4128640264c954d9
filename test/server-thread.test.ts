import assert from 'node:assert/strict';
import { connect, createServer } from 'node:net';
import { describe, it } from 'node:test';
import { run } from '../src/run/run.js';
import { startServerThread } from '../src/simulator/thread.js';

interface Handle {
  type: string;
  localEndpoint?: { port: number } | null;
}

/** The libuv handles of this thread and of each worker thread, from the diagnostic report. */
function handlesByThread(): { main: Handle[]; workers: Handle[][] } {
  const report = process.report.getReport() as unknown as { libuv: Handle[]; workers: Array<{ libuv: Handle[] }> };
  return { main: report.libuv, workers: report.workers.map((w) => w.libuv) };
}

const onPort = (port: number) => (handle: Handle) => handle.type === 'tcp' && handle.localEndpoint?.port === port;

describe('built-in server thread', () => {
  it('run() without a target hosts the server on another thread, which ends with the run', async () => {
    let during: ReturnType<typeof handlesByThread> | undefined;
    const { report } = await run({ maxSessions: 1, pace: { kind: 'none' }, onSessionEnd: () => (during ??= handlesByThread()) });
    assert.equal(report.benchmarks[0]!.summary.sessions.completed, 1);
    const port = Number(new URL(report.config.target).port);
    // The server's sockets (listening and accepted) are bound to its port; the client's only connect to it.
    assert.deepEqual(during!.main.filter(onPort(port)), [], "no server socket on the caller's thread");
    assert.equal(during!.workers.filter((handles) => handles.some(onPort(port))).length, 1, 'the server listens on a worker thread');
    assert.deepEqual(handlesByThread().workers, [], 'no thread left after the run');
  });

  it('surfaces a server that cannot start as an error, leaving no thread behind', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      await assert.rejects(startServerThread({ port }), /^Error: the built-in server did not start: listen EADDRINUSE/);
      await assert.rejects(run({ maxSessions: 1, server: { port } }), /the built-in server did not start: listen EADDRINUSE/);
      assert.deepEqual(handlesByThread().workers, []);
    } finally {
      taken.close();
    }
  });

  it('close() ends the thread and its connections', async () => {
    const server = await startServerThread({ port: 0 });
    const port = Number(new URL(server.url).port);
    assert.equal(handlesByThread().workers.length, 1);
    await server.close();
    assert.deepEqual(handlesByThread().workers, []);
    const refused = await new Promise<string>((resolve) => {
      connect(port, '127.0.0.1')
        .once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? ''))
        .once('connect', () => resolve('connected'));
    });
    assert.equal(refused, 'ECONNREFUSED');
  });
});
