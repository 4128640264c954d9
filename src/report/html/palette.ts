/**
 * Colours. Load levels get a sequential ramp (plasma, cut before its yellow end,
 * which is unreadable on white): light load purple-blue, heavy load orange.
 */
const PLASMA = ['#0d0887', '#6a00a8', '#b12a90', '#e16462', '#f89540'];

/** Red is the SLO lines' alone: no series drawn beside them shares it. */
export const COLORS = {
  p50: '#2563eb',
  p95: '#d97706',
  p99: '#7c3aed',
  slo: '#dc2626',
  capacity: '#15803d',
  failsAt: '#9ca3af',
  audio: '#60a5fa',
  /** Silence the client streams while it waits between utterances. */
  silence: '#cbd5e1',
  delta: '#f59e0b',
  final: '#111827',
  error: '#dc2626',
  end: '#9ca3af',
  /** Speech to speech: the agent's audio, its playback, and the user speaking over it. */
  agentAudio: '#0d9488',
  playback: '#15803d',
  bargeIn: '#7c3aed',
  throughput: '#2563eb',
  errorRate: '#0f766e',
  /** The two sides of a comparison: the baseline A and the candidate B. */
  sideA: '#2563eb',
  sideB: '#d97706',
};

export function levelColors(count: number): string[] {
  return Array.from({ length: count }, (_, i) => rampColor(count === 1 ? 0.35 : i / (count - 1)));
}

function rampColor(t: number): string {
  const position = t * (PLASMA.length - 1);
  const lo = Math.floor(position);
  const hi = Math.min(lo + 1, PLASMA.length - 1);
  const mix = position - lo;
  const a = hexToRgb(PLASMA[lo]!);
  const b = hexToRgb(PLASMA[hi]!);
  return `#${a
    .map((c, i) =>
      Math.round(c + (b[i]! - c) * mix)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

function hexToRgb(hex: string): number[] {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}
