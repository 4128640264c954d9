/** What the deployment costs: per replica-hour, times the replicas that served the run. */
export interface Pricing {
  perReplicaHour: number;
  replicas: number;
  /**
   * Where `replicas` came from when a replica gauge was named (`--replicas-series`):
   * `fallback` when the gauge had no reading in the level and `replicas` is the one
   * given. Absent: the replicas given, no gauge named.
   */
  replicasFrom?: { series: string; fallback: boolean };
}

export interface Cost {
  perReplicaHour: number;
  replicas: number;
  replicasFrom?: Pricing['replicasFrom'];
  /** The measured interval the deployment is charged for, idle time included. */
  intervalS: number;
  /** Audio processed in it, all sessions counted, overlapping ones too. */
  audioS: number;
  total: number;
  /** total / audio hours; null when no audio was processed. */
  perAudioHour: number | null;
  /** Speech generation: input characters in the interval, and total per million of them (null when none). */
  chars?: number;
  perMillionChars?: number | null;
}

/**
 * Cost per audio hour as seed 002 defines it: the deployment's cost over the interval
 * divided by the audio hours processed in it, from achieved throughput, not a model
 * card's peak.
 */
export function costOf(pricing: Pricing, intervalS: number, audioS: number, chars?: number): Cost {
  const total = (pricing.perReplicaHour * pricing.replicas * intervalS) / 3600;
  return {
    ...pricing,
    intervalS,
    audioS,
    total,
    perAudioHour: audioS > 0 ? total / (audioS / 3600) : null,
    ...(chars !== undefined ? { chars, perMillionChars: chars > 0 ? total / (chars / 1e6) : null } : {}),
  };
}
