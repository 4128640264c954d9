import { valuesTrustedFor } from '../metrics/stats.js';
import { headlineLatencies, levelCatalog } from './picks.js';
import type { Report } from './schema.js';

/** The tails every summary shows, and the values each needs (the one rule, `valuesTrustedFor`). */
const TRUSTED_FROM = { p95: valuesTrustedFor(95), p99: valuesTrustedFor(99) } as const;

/**
 * One line per level whose headline latency has too few values for its tail
 * percentiles, e.g. `concurrent@4: p95 and p99 of ttft_ms rest on 6 values (trust p95 from 20, p99 from 100)`.
 */
export function thinTailLines(report: Report): string[] {
  return report.benchmarks.flatMap((b) => {
    // Each level's own task's headline: a merge of different tasks (--allow-mixed) holds several.
    const metric = headlineLatencies(levelCatalog(report, b))[0];
    if (!metric) return [];
    const count = b.summary.metrics[metric.name]?.count ?? 0;
    const thin = (Object.keys(TRUSTED_FROM) as Array<keyof typeof TRUSTED_FROM>).filter((p) => count > 0 && count < TRUSTED_FROM[p]);
    if (thin.length === 0) return [];
    const trust = thin.map((p) => `${p} from ${TRUSTED_FROM[p]}`).join(', ');
    return [
      `${b.label}: ${thin.join(' and ')} of ${metric.name} ${thin.length === 1 ? 'rests' : 'rest'} on ${count} ${count === 1 ? 'value' : 'values'} (trust ${trust})`,
    ];
  });
}
