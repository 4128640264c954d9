/**
 * What bench/speech-load.ts stamps, in a module of its own so the load process loads
 * nothing more to stamp (bench/stamp-truth.ts compares them with voxbench's figures).
 */
import { get } from 'node:http';

/** When the load received an answer's request, and wrote each of its audio chunks (ms, `performance.timeOrigin + performance.now()`). */
export interface AnswerStamps {
  requestAt: number;
  writesAt: number[];
}

/** What `GET /stamps` answers: SSE answers by the number the client kept from `server-timing`, WebSocket answers by the client's port. */
export interface LoadStamps {
  sse: Record<string, AnswerStamps>;
  ws: Record<string, AnswerStamps>;
}

export const ANSWER_TIMING = 'load-answer';

/**
 * Fetches (and so clears) the load's stamps, with node:http: `fetch` (undici) compiles
 * its WebAssembly HTTP parser on first use, and V8 then optimizes it on a helper thread
 * for 100-130 ms of CPU, which ran into the level that followed and, on a client given
 * one core, made its first sessions' audio late (BENCHMARKS.md, speech out at scale).
 */
export async function loadStamps(url: string): Promise<LoadStamps> {
  return new Promise((resolve, reject) => {
    get(`${url.replace(/^ws/, 'http')}/stamps`, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString('utf8')) as LoadStamps));
      response.on('error', reject);
    }).on('error', reject);
  });
}
