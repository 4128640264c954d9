import { percentile } from '../metrics/stats.js';
import { turnViews } from '../metrics/turns.js';
import type { SessionRecord } from '../timeline/types.js';

/**
 * The live progress line on stderr: sessions done and expected, the level, failures
 * so far and a running TTFT median. Only on a terminal: pipes and CI logs stay clean.
 */
export class Progress {
  private failed = 0;
  private readonly ttfts: number[] = [];
  private lastDrawn = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  update(record: SessionRecord, done: number, expected: number, level: string): void {
    if (!this.stream.isTTY) return;
    if (record.outcome.status === 'failed') this.failed++;
    for (const turn of turnViews(record.timeline)) {
      const first = turn.textEvents[0];
      if (first && turn.chunks[0]) this.ttfts.push(first.t - turn.chunks[0].sentMs);
    }
    const now = Date.now();
    if (now - this.lastDrawn < 100 && done < expected) return; // redraw at most 10 times a second
    this.lastDrawn = now;
    const p50 = this.ttfts.length > 0 ? `${percentile(Float64Array.from(this.ttfts).sort(), 50).toFixed(0)} ms` : 'n/a';
    this.stream.write(`\r\x1b[K${level}: sessions ${done}/${expected} · failed ${this.failed} · TTFT p50 ${p50}`);
  }

  clear(): void {
    if (this.stream.isTTY) this.stream.write('\r\x1b[K');
  }
}
