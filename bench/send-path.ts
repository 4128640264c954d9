/**
 * What masking costs the send path: CPU per frame for 50,000 prepared 4.3 KB frames
 * (100 ms of 16 kHz audio as vLLM's JSON append) sent over one loopback connection,
 * with random masking keys (what browsers must use) and with the all-zero key voxbench
 * uses by default. The receiving `ws` server runs in a child process, so the CPU counted
 * is the sender's. Median of three, alternating.
 *
 *   npm run bench:send -- "LABEL"   # writes the rows into BENCHMARKS.md
 *   npm run bench:send              # prints only
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket, { WebSocketServer } from 'ws';
import { measuredOn, median, tableRow, upsertRow } from './figures.js';

const FRAMES = 50_000;

if (process.argv[2] === '--receiver') {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss.on('listening', () => process.send!((wss.address() as { port: number }).port));
  wss.on('connection', (socket) => {
    let got = 0;
    socket.on('message', () => ++got === FRAMES && socket.send('done'));
  });
} else {
  const label = process.argv[2];
  const receiver = fork(fileURLToPath(import.meta.url), ['--receiver']);
  const port = await new Promise<number>((resolve) => receiver.once('message', (p) => resolve(p as number)));
  const frame = Buffer.from(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3200, 7).toString('base64') }));
  const cpu: Record<string, number[]> = { random: [], zero: [] };
  for (let round = 0; round < 3; round++) {
    for (const key of ['random', 'zero'] as const) {
      const ws = new WebSocket(`ws://127.0.0.1:${port}`, key === 'zero' ? { generateMask: () => {} } : {});
      await new Promise((resolve) => ws.once('open', resolve));
      const done = new Promise((resolve) => ws.once('message', resolve));
      const start = process.cpuUsage();
      for (let i = 0; i < FRAMES; i++) {
        ws.send(frame);
        // Let the socket drain now and then, as paced sessions do.
        if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
      }
      await done;
      const used = process.cpuUsage(start);
      cpu[key]!.push((used.user + used.system) / FRAMES);
      ws.close();
    }
  }
  receiver.kill();
  for (const key of ['random', 'zero'] as const) {
    const row = tableRow([
      key === 'zero' ? 'all-zero key (default)' : 'random keys (--mask-frames)',
      label ?? '',
      measuredOn(),
      frame.length,
      median(cpu[key]!).toFixed(2),
    ]);
    console.log(row);
    if (label) await upsertRow('send-path', row, 2);
  }
}
