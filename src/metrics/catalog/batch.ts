import { sessionEndMs, type Task } from '../../timeline/types.js';
import { ANCHORS as A } from '../anchors.js';
import { maxOf } from '../stats.js';
import type { MetricDefinition } from './definition.js';
import { audioMs } from './stt.js';

/** One HTTP request per input: its upload and processing, the corpus throughput and the connection pool. */

const BATCH_STT: readonly Task[] = ['batch_stt'];

/** A part with no request, one for every session over WebSocket: a report keeps each session's part until its level is summarized. */
const NO_REQUESTS: boolean[] = [];

export const REQUEST_LATENCY: MetricDefinition[] = [
  {
    name: 'upload_ms',
    unit: 'ms',
    scope: 'input',
    tasks: BATCH_STT,
    tags: ['latency', 'transport'],
    better: 'lower',
    from: A.input.request_start,
    to: A.input.upload_end,
    description: 'Request start to the last byte of the body written: connection (unless reused) and upload.',
  },
  {
    name: 'processing_ms',
    unit: 'ms',
    scope: 'input',
    tasks: BATCH_STT,
    tags: ['headline', 'latency'],
    better: 'lower',
    from: A.input.request_start,
    to: A.input.response_end,
    description: 'Request start to the response complete: what a batch job waits per recording, upload included.',
  },
  {
    name: 'server_processing_ms',
    unit: 'ms',
    scope: 'input',
    tasks: BATCH_STT,
    tags: ['latency'],
    better: 'lower',
    quantity: "the server's own timing from its response headers: openai-processing-ms, else the longest Server-Timing duration",
    description: "The server's account of its processing, beside the client's processing_ms; only servers that send one.",
    value: (v) => {
      const timing = v.request?.serverTiming;
      if (!timing) return undefined;
      return timing['openai-processing-ms'] ?? maxOf(Object.values(timing));
    },
  },
];

export const BATCH_CORPUS: MetricDefinition[] = [
  {
    name: 'corpus_rtfx',
    unit: 'ratio',
    scope: 'corpus',
    tasks: BATCH_STT,
    tags: ['headline', 'throughput'],
    better: 'higher',
    quantity: "total audio of the completed sessions over the benchmark's wall time, first start to last end",
    description: "The leaderboards' RTFx: audio transcribed per second of wall time, concurrency included; the same number as audio hours per hour.",
    part: (view) => ({
      audio: view.inputs.reduce((sum, input) => sum + (audioMs(input) ?? 0), 0),
      start: view.timeline.startMs,
      end: sessionEndMs(view.timeline),
    }),
    reduce: (parts: Array<{ audio: number; start: number; end: number }>) => {
      let audio = 0;
      let start = Infinity;
      let end = -Infinity;
      for (const part of parts) {
        audio += part.audio;
        start = Math.min(start, part.start);
        end = Math.max(end, part.end);
      }
      return end > start ? audio / (end - start) : null;
    },
  },
  {
    name: 'connection_reuse',
    unit: 'ratio',
    scope: 'corpus',
    tasks: ['batch_stt', 'batch_tts'],
    tags: ['transport'],
    better: 'higher',
    quantity: 'requests sent over a kept-alive connection, over all requests',
    description: 'How much of the run reused connections (keep-alive pool); 0 means every request paid for a new connection.',
    part: (view) => (view.timeline.transport.kind === 'http' ? view.timeline.transport.requests.map((r) => r.reusedConnection) : NO_REQUESTS),
    reduce: (parts: Array<Array<boolean | undefined>>) => {
      const known = parts.flat().filter((reused) => reused !== undefined);
      return known.length > 0 ? known.filter(Boolean).length / known.length : null;
    },
  },
  {
    name: 'connection_retries',
    unit: 'count',
    scope: 'corpus',
    tasks: ['batch_stt', 'batch_tts'],
    tags: ['transport'],
    better: 'lower',
    quantity: 'requests sent once more on a new connection, their kept-alive one having died before any byte of the answer',
    description:
      'A server that closes connections after each answer without saying so, or whose idle timeout races the client; the retried requests are timed from the attempt that got the answer.',
    part: (view) => (view.timeline.transport.kind === 'http' ? view.timeline.transport.requests.filter((r) => r.retries).length : 0),
    reduce: (parts: number[]) => parts.reduce((n, count) => n + count, 0),
  },
];
