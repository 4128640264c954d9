import type { BenchmarkSummary } from '../metrics/compute.js';

/** Figures whose median is negative when audio the server never answers (trailing silence) is sent last. */
const SEND_ANCHORED = ['avg_rtt_ms', 'ttlt_ms'];

/**
 * Summary lines for figures that look wrong but are not, or that measure nothing:
 * said where they show, so a reader does not take them for a bug or a result.
 */
export function cautions(summary: BenchmarkSummary): string[] {
  const lines: string[] = [];
  const { total } = summary.sessions;
  if (total > 0 && summary.excluded.warmup + summary.excluded.cooldown >= total) {
    lines.push(
      `warning: warm-up and cool-down leave out all ${total} sessions, so no figure or throughput measures anything; leave out fewer sessions or run more`,
    );
  }
  const negative = SEND_ANCHORED.flatMap((name) => {
    const p50 = summary.metrics[name]?.p50;
    return p50 !== undefined && p50 < 0 ? [`${name} ${p50.toFixed(1)} ms`] : [];
  });
  if (negative.length > 0) {
    lines.push(
      `note: negative median ${negative.join(', ')}: avg_rtt_ms is mean receive time minus mean send time and ttlt_ms ends at the last audio sent, ` +
        'so audio the server never answers (trailing silence, server VAD) drags them below zero; word_emission_ms is the true round trip',
    );
  }
  return lines;
}
