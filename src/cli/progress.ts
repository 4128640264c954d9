import { metricsFor } from '../metrics/catalog.js';
import { computeSessionMetrics } from '../metrics/compute.js';
import { percentile } from '../metrics/stats.js';
import type { SessionRecord } from '../timeline/types.js';

/**
 * The live progress line on stderr: sessions done and expected, the level, failures
 * so far and a running median of the task's first headline latency (TTFT for
 * speech-to-text). Only on a terminal: pipes and CI logs stay clean.
 */
export class Progress {
  private failed = 0;
  private readonly values: number[] = [];
  private headline: string | undefined;
  private lastDrawn = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  update(record: SessionRecord, done: number, expected: number, level: string): void {
    if (!this.stream.isTTY) return;
    if (record.outcome.status === 'failed') this.failed++;
    this.headline ??= metricsFor(record.timeline.task, 'headline').find((m) => m.tags.includes('latency') && m.scope === 'input')?.name;
    const name = this.headline;
    if (name) for (const values of computeSessionMetrics(record.timeline).inputs) if (values[name] !== undefined) this.values.push(values[name]!);
    const now = Date.now();
    if (now - this.lastDrawn < 100 && done < expected) return; // redraw at most 10 times a second
    this.lastDrawn = now;
    const p50 = this.values.length > 0 ? `${percentile(Float64Array.from(this.values).sort(), 50).toFixed(0)} ms` : 'n/a';
    this.stream.write(`\r\x1b[K${level}: sessions ${done}/${expected} · failed ${this.failed} · ${this.headline ?? 'latency'} p50 ${p50}`);
  }

  clear(): void {
    if (this.stream.isTTY) this.stream.write('\r\x1b[K');
  }
}
