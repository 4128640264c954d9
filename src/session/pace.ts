/** How audio is fed: at `speed` times real time against absolute deadlines, or unpaced. */
export type Pace = { kind: 'realtime'; speed: number } | { kind: 'none' };

/** Parses `realtime`, `2x`, `0.5x` or `none`; returns null for anything else. */
export function parsePace(text: string): Pace | null {
  if (text === 'realtime') return { kind: 'realtime', speed: 1 };
  if (text === 'none') return { kind: 'none' };
  const match = /^(\d+(?:\.\d+)?)x$/.exec(text);
  const speed = match ? Number(match[1]) : NaN;
  return speed > 0 ? { kind: 'realtime', speed } : null;
}

export function formatPace(pace: Pace): string {
  if (pace.kind === 'none') return 'none';
  return pace.speed === 1 ? 'realtime' : `${pace.speed}x`;
}

/** How many times real time the stream runs: unpaced streams count as real time where a speed is needed (ms of audio into ms of clock). */
export function speedOf(pace: Pace): number {
  return pace.kind === 'none' ? 1 : pace.speed;
}
