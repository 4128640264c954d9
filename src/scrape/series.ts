import type { TelemetrySeries } from '../report/schema.js';
import type { MetricFamily } from './exposition.js';

/** Bounds on what a run keeps, whatever a target exposes and however long the run lasts. */
export interface SeriesLimits {
  /** Series kept over all targets; a target's series beyond it are counted and dropped. */
  maxSeries: number;
  /** Points per series; past it every other point is dropped, so a long run keeps its whole span at a coarser step. */
  maxPoints: number;
  /**
   * A gauge kept whole, never thinned (`--replicas-series`): each level is charged from
   * it as the level ends, and a report rendered later must read the same points.
   */
  whole?: string;
}

/** At most about 600,000 points, some 12 MB of report.json, whatever a target exposes; a default run keeps a few dozen series. */
export const DEFAULT_SERIES_LIMITS: SeriesLimits = { maxSeries: 300, maxPoints: 2048 };

/** A histogram's per-interval quantiles, each a series with its `quantile` label. */
export const HISTOGRAM_QUANTILES = [0.5, 0.95] as const;

/** What the previous scrape of a counter or a histogram read, to take the interval's difference from. */
interface Previous {
  tMs: number;
  value: number;
  /** Histograms: cumulative counts by upper bound, ascending. */
  buckets?: Array<[le: number, count: number]>;
}

/**
 * The series kept from every scrape of a run: a gauge as read, a counter as its rate
 * per second over each interval (a drop is a restart, and the new value is the
 * increase, as Prometheus' `rate` reads it), a histogram as quantiles of what it
 * observed in each interval (interpolated in the bucket, as `histogram_quantile`).
 */
export class SeriesStore {
  private readonly series = new Map<string, TelemetrySeries>();
  private readonly previous = new Map<string, Previous>();
  private readonly dropped = new Map<number, number>();
  /** Each target's last scrape, and the keys of the gauges that scrape read. */
  private readonly lastScrape = new Map<number, { tMs: number; gauges: Set<string> }>();

  constructor(
    private readonly keep: (family: string) => boolean,
    private readonly limits: SeriesLimits = DEFAULT_SERIES_LIMITS,
  ) {}

  /** One scrape of target `target`, stamped `tMs` on the run's clock. */
  add(target: number, tMs: number, families: readonly MetricFamily[]): void {
    const gauges = new Set<string>();
    for (const family of families) {
      if (!this.keep(family.name)) continue;
      if (family.type === 'histogram') this.addHistogram(target, tMs, family);
      else {
        for (const sample of family.samples) {
          // A summary's quantiles are gauges; its sum, count and a counter's creation time are not series.
          if (family.type === 'summary' ? sample.labels.quantile === undefined : sample.name.endsWith('_created')) continue;
          if (family.type === 'counter') this.addRate(target, tMs, sample.name, sample.labels, sample.value);
          else if (family.type === 'summary') this.point(target, sample.name, sample.labels, 'quantile', tMs, sample.value);
          else if (this.point(target, sample.name, sample.labels, 'gauge', tMs, sample.value)) gauges.add(keyOf(target, sample.name, sample.labels));
        }
      }
    }
    this.markAbsent(target, tMs, gauges);
  }

  /**
   * Notes where a gauge came or went between this scrape of `target` and its last: a
   * gauge new since then was absent at the last scrape; one the last read and this did
   * not is absent now. Without it, a gauge gone would seem to hold its last value, and
   * one new to have been there all along.
   */
  private markAbsent(target: number, tMs: number, gauges: Set<string>): void {
    const last = this.lastScrape.get(target);
    this.lastScrape.set(target, { tMs, gauges });
    if (!last) return;
    for (const key of gauges) if (!last.gauges.has(key)) this.absentAt(key, last.tMs);
    for (const key of last.gauges) if (!gauges.has(key)) this.absentAt(key, tMs);
  }

  private absentAt(key: string, tMs: number): void {
    const series = this.series.get(key);
    if (series) (series.absent ??= []).push(Math.round(tMs));
  }

  /** Targets whose series were dropped at the bound, with how many. */
  droppedSeries(): ReadonlyMap<number, number> {
    return this.dropped;
  }

  all(): TelemetrySeries[] {
    return [...this.series.values()].filter((s) => s.points.length > 0);
  }

  private addRate(target: number, tMs: number, name: string, labels: Record<string, string>, value: number): void {
    const key = keyOf(target, name, labels);
    const before = this.previous.get(key);
    this.previous.set(key, { tMs, value });
    if (!before || tMs <= before.tMs) return;
    const increase = value >= before.value ? value - before.value : value;
    this.point(target, name, labels, 'rate', tMs, increase / ((tMs - before.tMs) / 1000));
  }

  private addHistogram(target: number, tMs: number, family: MetricFamily): void {
    const byLabels = new Map<string, { labels: Record<string, string>; buckets: Array<[number, number]> }>();
    for (const sample of family.samples) {
      if (!sample.name.endsWith('_bucket') || sample.labels.le === undefined) continue;
      const { le, ...labels } = sample.labels;
      const key = keyOf(target, family.name, labels);
      if (!byLabels.has(key)) byLabels.set(key, { labels, buckets: [] });
      byLabels.get(key)!.buckets.push([le === '+Inf' ? Infinity : Number(le), sample.value]);
    }
    for (const [key, { labels, buckets }] of byLabels) {
      buckets.sort((a, b) => a[0] - b[0]);
      const before = this.previous.get(key);
      this.previous.set(key, { tMs, value: 0, buckets });
      if (!before?.buckets) continue;
      const delta = intervalCounts(before.buckets, buckets);
      if (delta === undefined) continue;
      for (const q of HISTOGRAM_QUANTILES) {
        const value = bucketQuantile(q, delta);
        if (value !== undefined) this.point(target, family.name, { ...labels, quantile: String(q) }, 'quantile', tMs, value);
      }
    }
  }

  /** Adds one reading; whether it was kept. */
  private point(target: number, name: string, labels: Record<string, string>, kind: TelemetrySeries['kind'], tMs: number, value: number): boolean {
    if (!Number.isFinite(value)) return false;
    const key = keyOf(target, name, labels);
    let series = this.series.get(key);
    if (!series) {
      if (this.series.size >= this.limits.maxSeries) {
        this.dropped.set(target, (this.dropped.get(target) ?? 0) + 1);
        return false;
      }
      this.series.set(key, (series = { target, name, labels, kind, points: [] }));
    }
    // Whole milliseconds: a reading is placed within one interval anyway, and the report stays smaller.
    series.points.push([Math.round(tMs), value]);
    if (series.points.length > this.limits.maxPoints && name !== this.limits.whole) series.points = series.points.filter((_, i) => i % 2 === 0);
    return true;
  }
}

/** Counts observed between two scrapes of one histogram, by bucket; undefined when nothing was (or the buckets changed). A restart counts from zero. */
function intervalCounts(before: ReadonlyArray<[number, number]>, now: ReadonlyArray<[number, number]>): Array<[number, number]> | undefined {
  if (before.length !== now.length || before.some(([le], i) => le !== now[i]![0])) return undefined;
  const restarted = now.some(([, count], i) => count < before[i]![1]);
  const delta = now.map(([le, count], i): [number, number] => [le, restarted ? count : count - before[i]![1]]);
  return delta.length > 0 && delta[delta.length - 1]![1] > 0 ? delta : undefined;
}

/**
 * The `q` quantile of cumulative bucket counts, interpolated linearly inside its bucket
 * (the lowest bucket from 0), as Prometheus' `histogram_quantile`: a quantile in the
 * `+Inf` bucket is the highest finite bound.
 */
export function bucketQuantile(q: number, buckets: ReadonlyArray<[le: number, count: number]>): number | undefined {
  const total = buckets[buckets.length - 1]?.[1];
  if (total === undefined || total <= 0) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (le === Infinity) return lower;
      if (count === below) return le;
      return lower + (le - lower) * ((rank - below) / (count - below));
    }
    lower = le;
    below = count;
  }
  return lower;
}

function keyOf(target: number, name: string, labels: Record<string, string>): string {
  return JSON.stringify([target, name, Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
}
