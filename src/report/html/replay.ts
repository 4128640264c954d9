import { replayPairs } from '../replay-text.js';
import type { Report } from '../schema.js';
import { formatMetric, formatPercent } from './format.js';
import { html } from './markup.js';
import { note, table, type Section } from './section.js';

/** At most this many sessions not played are listed on the page (report.json names them all). */
const LISTED = 50;

/**
 * A replay of recorded traffic: how it was played, each window's recorded figures beside
 * its replayed ones (the same sessions on the old server and the new), and every recorded
 * session it could not play, counted by reason and named. Absent for other runs.
 */
export function replaySection(report: Report): Section | undefined {
  const replay = report.config.replay;
  if (!replay) return undefined;
  const levels = replay.levels.map((level) => ({ level, benchmark: report.benchmarks.find((b) => b.label === level.label) }));
  const counts = table(
    ['level', 'recorded sessions', 'played', 'not played: another task', 'no matching corpus audio', 'recorded with a gap', 'recorded figures of'],
    levels.map(({ level }) => [
      level.label,
      level.recorded,
      level.played,
      level.skipped.dialect,
      level.skipped.unmatched,
      level.skipped.gap,
      level.figures ? (level.figures.of === 'window' ? `the ${level.figures.sessions} sessions it plays` : 'the whole recording') : 'none recorded',
    ]),
  );
  const figures = levels.flatMap(({ level, benchmark }) => {
    if (!level.figures || !benchmark) return [];
    const errors = [level.label, 'error rate', formatPercent(level.figures.errorRate), formatPercent(benchmark.summary.errorRate)];
    return [errors, ...replayPairs(level.figures, benchmark).map((p) => [level.label, p.name, formatMetric(p.recorded, 'ms'), formatMetric(p.replayed, 'ms')])];
  });
  const skipped = replay.skippedSessions;
  const listed = table(
    ['level', 'recorded session', 'reason', 'why'],
    skipped.slice(0, LISTED).map((s) => [s.level, s.session, html`<span class="chip fail">${s.reason}</span>`, html`<span class="message">${s.detail}</span>`]),
  );
  return {
    id: 'replay',
    title: 'Replay',
    charts: [],
    body: html`${note(
      `Recorded traffic replayed from ${replay.file} (a ${replay.source.kind} recording from ${replay.source.startedAt}): arrivals at ${replay.speed}x, ${replay.scale} session${replay.scale > 1 ? 's' : ''} per recorded one, inputs filled with seed ${replay.seed}; ${replay.recorded} recorded, ${replay.played} played.`,
    )}${counts}${
      figures.length > 0
        ? html`<h3 class="subhead">Recorded beside replayed, per window (latencies at p95)</h3>${table(['level', 'figure', 'recorded', 'replayed'], figures)}`
        : ''
    }${
      skipped.length > 0
        ? html`<h3 class="subhead">Recorded sessions not played</h3>${listed}${skipped.length > LISTED ? note(`and ${skipped.length - LISTED} more: report.json names them all`) : ''}`
        : ''
    }`,
  };
}
