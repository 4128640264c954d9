import assert from 'node:assert/strict';
import type { ReportSession } from '../src/report/schema.js';

const perInput = (sessions: ReportSession[], metric: string): Array<number | undefined> => sessions.flatMap((s) => s.metrics.inputs.map((i) => i[metric]));

/**
 * The proxy's figure for `metric` against the benchmark's own on the same sessions (`own[k]` and `seen[k]` the
 * same session). The proxy sees each client frame after the client sent it and each server frame before the
 * client gets it, so its latencies are the client's less the two hops between them: causality, not timing.
 * Every input has a value, above zero. The one way load breaks the order is a client kept from running between
 * its write and its stamp, which makes its own figure short for that input alone; a proxy that stamps late, or
 * times from a later frame, is late on every input. So the typical input (the median excess) may not be later at
 * the proxy, by more than 1 ms of rounding. How much earlier, the hops, is measured by bench/proxy-overhead.ts
 * (BENCHMARKS.md); a frame the proxy attributes to another turn is caught by comparing what it saw, frame by frame.
 */
export function assertSeenNoLater(own: ReportSession[], seen: ReportSession[], metric: string): void {
  const [mine, proxied] = [perInput(own, metric), perInput(seen, metric)];
  assert.equal(proxied.length, mine.length, `${metric}: the same inputs`);
  proxied.forEach((v, k) => assert.ok(v !== undefined && v > 0 && mine[k] !== undefined, `${metric}: ${v} ms at the proxy, ${mine[k]} ms at the client`));
  const excess = proxied.map((v, k) => v! - mine[k]!).sort((a, b) => a - b);
  const median = excess[Math.floor((excess.length - 1) / 2)]!;
  assert.ok(
    median <= 1,
    `${metric}: the proxy later than the client by ${excess.map((e) => e.toFixed(2)).join(', ')} ms (${proxied.join(', ')} at the proxy, ${mine.join(', ')} at the client)`,
  );
}
