import type { Telemetry, TelemetrySeries } from './schema.js';

/**
 * Every part's telemetry as one, for `report merge`: targets of the same (redacted) URL
 * are one target, their scrapes and failures added; a series of the same target, name
 * and labels is one series, its points from every part in time order. Each part's
 * points are moved onto the merged clock by `deltaMs`, as its sessions are. Undefined
 * when no part scraped.
 */
export function mergeTelemetry(parts: ReadonlyArray<{ telemetry: Telemetry | undefined; deltaMs: number }>): Telemetry | undefined {
  const scraped = parts.filter((p): p is { telemetry: Telemetry; deltaMs: number } => p.telemetry !== undefined);
  if (scraped.length === 0) return undefined;
  const targets: Telemetry['targets'] = [];
  const series = new Map<string, TelemetrySeries>();
  for (const { telemetry, deltaMs } of scraped) {
    const index = telemetry.targets.map((target) => {
      const i = targets.findIndex((t) => t.url === target.url);
      if (i < 0) return targets.push({ ...target }) - 1;
      const known = targets[i]!;
      const droppedSeries = (known.droppedSeries ?? 0) + (target.droppedSeries ?? 0);
      targets[i] = {
        url: known.url,
        scrapes: known.scrapes + target.scrapes,
        failures: known.failures + target.failures,
        ...((target.lastError ?? known.lastError) !== undefined ? { lastError: target.lastError ?? known.lastError } : {}),
        ...(droppedSeries > 0 ? { droppedSeries } : {}),
      };
      return i;
    });
    for (const s of telemetry.series) {
      const target = index[s.target]!;
      const key = JSON.stringify([target, s.name, s.kind, Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
      const points = s.points.map(([t, v]): [number, number] => [t + deltaMs, v]);
      const absent = (s.absent ?? []).map((t) => t + deltaMs);
      const known = series.get(key);
      if (known) {
        known.points.push(...points);
        if (absent.length > 0) (known.absent ??= []).push(...absent);
      } else series.set(key, { ...s, target, points, ...(absent.length > 0 ? { absent } : {}) });
    }
  }
  for (const s of series.values()) {
    s.points.sort((a, b) => a[0] - b[0]);
    s.absent?.sort((a, b) => a - b);
  }
  const kept = scraped.flatMap(({ telemetry }) => (telemetry.kept ? [telemetry.kept] : []));
  const replicasSeries = scraped.find(({ telemetry }) => telemetry.replicasSeries !== undefined)?.telemetry.replicasSeries;
  return {
    // The coarsest step of the parts: no part's points are closer than that.
    intervalMs: Math.max(...scraped.map(({ telemetry }) => telemetry.intervalMs)),
    targets,
    series: [...series.values()],
    ...(replicasSeries !== undefined ? { replicasSeries } : {}),
    ...(kept.length > 0 ? { kept: { defaults: union(kept.map((k) => k.defaults)), match: union(kept.map((k) => k.match)) } } : {}),
  };
}

function union(lists: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(lists.flat())];
}
