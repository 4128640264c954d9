import { figureText } from './figure-text.js';
import type { RecordedFigures } from '../load/traffic-shape.js';
import type { Benchmark, Report } from './schema.js';

/** Figures set side by side, recorded and replayed (all in ms): the latencies that answer "how does our traffic fare there". */
const SIDE_BY_SIDE = ['connect_ms', 'ttft_ms', 'finalization_ms', 'ttfa_ms', 'turn_ms', 'session_ms'];

/** At most this many skipped sessions are named on the console (report.json names them all). */
const NAMED = 5;

/**
 * A replay's lines: what it played of the recording and what it could not (named and
 * counted), and the recorded traffic's p95 beside the replay's for the level's task.
 */
export function replayLines(report: Report): string[] {
  const replay = report.config.replay;
  if (!replay) return [];
  const { skipped } = replay;
  const skips = Object.values(skipped).reduce((a, b) => a + b, 0);
  const lines = [
    `replay of ${replay.file} (${replay.source.kind} recording from ${replay.source.startedAt}): ${replay.recorded} recorded sessions, ${replay.played} played at ${replay.speed}x${replay.scale > 1 ? `, ${replay.scale} per recorded one` : ''}` +
      (skips > 0
        ? `; ${skips} not played: ${skipped.dialect} another task than the target's dialect, ${skipped.unmatched} without matching corpus audio, ${skipped.gap} recorded with a gap`
        : ''),
    ...replay.skippedSessions.slice(0, NAMED).map((s) => `  not played: recorded session ${s.session} (${s.reason}): ${s.detail}`),
    ...(replay.skippedSessions.length > NAMED ? [`  and ${replay.skippedSessions.length - NAMED} more (report.json names them all)`] : []),
  ];
  for (const benchmark of report.benchmarks) {
    const recorded = replay.levels.find((l) => l.label === benchmark.label)?.figures;
    if (!recorded) continue;
    const pairs = replayPairs(recorded, benchmark).map(
      ({ name, recorded: was, replayed: now }) => `${name} ${figureText(was, 'ms')} recorded, ${figureText(now, 'ms')} replayed`,
    );
    if (pairs.length > 0) lines.push(`p95, ${benchmark.label}${recorded.of === 'recording' ? ' (recorded: the whole recording)' : ''}: ${pairs.join('; ')}`);
  }
  return lines;
}

/** The latencies set side by side for a level: the recorded p95 of the sessions it plays, and its own. */
export function replayPairs(recorded: RecordedFigures, benchmark: Benchmark): Array<{ name: string; recorded: number; replayed: number }> {
  return SIDE_BY_SIDE.flatMap((name) => {
    const was = recorded.metrics[name];
    const now = benchmark.summary.metrics[name];
    return was && now ? [{ name, recorded: was.p95, replayed: now.p95 }] : [];
  });
}
