/**
 * Batch RTFx of the client itself: how many transcription requests per second
 * voxbench drives against a server that answers at once, so the figures are the
 * client's ceiling, not a model's. The server (on a worker thread, so its work is
 * not on the client's event loop) reads each multipart body whole and answers with
 * `{"text": ...}`, or, for a form with `stream=true`, three `transcription.chunk`
 * events and `data: [DONE]`. Closed-loop levels of requests in flight, each run for
 * a few seconds over the bundled samples (about 3 s of audio each).
 *
 *   npm run bench:batch -- "LABEL"      # writes the rows into BENCHMARKS.md
 *   npm run bench:batch                 # prints only
 */
import { Worker } from 'node:worker_threads';
import { run } from '../src/run/run.js';
import { measuredOn, tableRow, upsertRow } from './figures.js';

const LEVELS = [1, 16, 64];
const DURATION_S = 4;
const [label] = process.argv.slice(2);

const SERVER = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const text = 'the birch canoe slid on the smooth planks';
const chunk = (content) => 'data: ' + JSON.stringify({ object: 'transcription.chunk', choices: [{ delta: { content } }] }) + '\\n\\n';
const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    if (Buffer.concat(parts).includes('name="stream"')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunk('the birch canoe') + chunk(' slid on') + chunk(' the smooth planks') + 'data: [DONE]\\n\\n');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text, usage: { type: 'duration', seconds: 3 } }));
    }
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

const worker = new Worker(SERVER, { eval: true });
const port = await new Promise<number>((resolve) => worker.once('message', resolve));
try {
  for (const stream of [false, true]) {
    for (const concurrency of LEVELS) {
      const { report } = await run({
        target: `http://127.0.0.1:${port}`,
        protocol: 'vllm-transcriptions',
        model: 'openai/whisper-large-v3',
        profile: { kind: 'concurrent', concurrency },
        duration: DURATION_S,
        transcription: { stream },
      });
      const { summary, clientHealth } = report.benchmarks[0]!;
      const processing = summary.metrics.processing_ms!;
      const row = tableRow([
        concurrency,
        stream ? 'stream (SSE)' : 'json',
        label ?? 'this run',
        measuredOn(),
        `${summary.sessions.completed}/${summary.sessions.total}`,
        summary.throughput.sessionsPerS.toFixed(0),
        summary.corpus.corpus_rtfx!.toFixed(0),
        processing.p50.toFixed(2),
        processing.p99.toFixed(2),
        summary.metrics.upload_ms!.p50.toFixed(2),
        (summary.corpus.connection_reuse! * 100).toFixed(1),
        clientHealth.eventLoopDelay.p99Ms.toFixed(2),
      ]);
      process.stdout.write(`${row}\n`);
      if (label !== undefined) await upsertRow('batch-client', row, 3);
    }
  }
} finally {
  await worker.terminate();
}
