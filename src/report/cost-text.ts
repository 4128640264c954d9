import type { Cost } from '../metrics/cost.js';
import { fixed } from './fixed.js';

/** Where a cost's replicas came from: `given`, the gauge's name, or `given (GAUGE not scraped)` when the gauge named had no reading in the level. */
export function replicasSource(cost: Pick<Cost, 'replicasFrom'>): string {
  const from = cost.replicasFrom;
  if (!from) return 'given';
  return from.fallback ? `given (${from.series} not scraped in the level)` : from.series;
}

/** The replicas a cost was charged for, and where they came from when a gauge was named: every output says it alike. */
export function replicasText(cost: Pick<Cost, 'replicas' | 'replicasFrom'>): string {
  const from = cost.replicasFrom;
  if (!from) return `${cost.replicas}`;
  return from.fallback ? `${cost.replicas} replicas ${replicasSource(cost)}` : `${cost.replicas} replicas, the time-weighted mean of ${from.series}`;
}

/** A level's cost in one line: per audio hour, and what it was charged for. */
export function costText(c: Cost): string {
  return (
    `${c.perAudioHour === null ? 'n/a (no audio processed)' : `${fixed(c.perAudioHour, 4)} per audio hour`} ` +
    `(${c.perReplicaHour}/replica-hour × ${replicasText(c)} over ${fixed(c.intervalS, 1)} s, ${fixed(c.audioS, 1)} s of audio)`
  );
}
