/**
 * What bench/speech-load.ts stamps, in a module of its own so the load process loads
 * nothing more to stamp (bench/stamp-truth.ts compares them with voxbench's figures).
 */

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

/** Fetches (and so clears) the load's stamps. */
export async function loadStamps(url: string): Promise<LoadStamps> {
  const response = await fetch(`${url.replace(/^ws/, 'http')}/stamps`);
  return (await response.json()) as LoadStamps;
}
