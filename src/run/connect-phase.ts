import type { StreamGate } from '../timeline/types.js';

/**
 * A closed-loop level's connect phase: the first session of each of `lanes` lanes
 * connects at the level's start, and none streams until every one is ready (or has
 * ended without getting there). Then `open` gives the time the phase ends (at once in
 * one thread; a time shared by all of them with worker threads), and each lane streams
 * from it plus its phase offset. So the level's connects and handshakes, far costlier
 * than a chunk, never run while another session's chunks are due.
 */
export function connectPhase(lanes: number, open: () => Promise<number>): { gate(offsetMs: number): StreamGate } {
  let waiting = lanes;
  let opened!: (t: number) => void;
  const start = new Promise<number>((resolve) => (opened = resolve));
  return {
    gate: (offsetMs) => {
      let arrived = false;
      return {
        ready: () => {
          if (arrived) return;
          arrived = true;
          if (--waiting === 0) void open().then(opened);
        },
        startAt: start.then((t) => t + offsetMs),
      };
    },
  };
}
