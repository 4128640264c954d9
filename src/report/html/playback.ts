import { DEFAULT_PLAYBACK_BUFFER_MS } from '../../views/playback.js';
import { sessionView } from '../../views/session-view.js';
import { benchmarksByLevel, loadAxis, loadLevel } from '../levels.js';
import type { Benchmark, Report, ReportSession } from '../schema.js';
import type { ChartSpec, SeriesSpec } from './chart-spec.js';
import { evenly, round } from './downsample.js';
import { html } from './markup.js';
import { curveMetrics, metricTitle } from './metrics.js';
import { CURVE_METRICS } from './load-curves.js';
import { COLORS } from './palette.js';
import { chartFigure, note, type Section } from './section.js';

/** Sessions drawn: a few timelines read better than many. */
const PLAYBACK_SESSIONS = 6;
/** The catalog's playback entries that the stalls-against-load chart draws, when the report has them. */
const STALL_METRICS = ['stall_count', 'stall_ms'] as const;

/**
 * Streaming speech generation as a listener hears it: per session, audio arriving
 * against audio played by a player that starts once its buffer holds enough, stalls
 * marked where the audio ran out; and, across load levels, how stalls grow.
 */
export function playbackSection(report: Report): Section | undefined {
  const levels = benchmarksByLevel(report);
  if (report.config.task !== 'tts') return undefined;
  const bufferMs = report.config.speech?.playbackBufferMs ?? DEFAULT_PLAYBACK_BUFFER_MS;
  const level = levels[levels.length - 1]!;
  const sessions = playbackSessions(level);
  const timelines = sessions.map(playbackChart);
  const stalls = stallCharts(report);
  return {
    id: 'playback',
    title: 'Speech playback',
    charts: [...timelines, ...stalls],
    body: html`${note(
      `Each chart is one session of ${level.label}, from its request: blue, audio received so far; black, audio played by a player that starts once ${bufferMs} ms is buffered and plays in real time; red, a stall (the audio ran out before the next chunk). Sessions are taken evenly across the level.`,
    )}
<div class="grid">${timelines.map((c, i) => chartFigure(c, `session #${sessions[i]!.index}`, 'audio received and played, seconds of audio against seconds since the request'))}</div>
${stalls.length > 0 ? html`<div class="grid">${stalls.map((c) => chartFigure(c, `${c.y.label} against load`, metricTitle(report, c.y.label)))}</div>` : ''}`,
  };
}

/** The sessions a level's playback charts draw: of those that received audio, taken evenly across the level. */
export function playbackSessions(benchmark: Benchmark): ReportSession[] {
  return evenly(
    benchmark.sessions.filter((s) => s.facts.audioReceived),
    PLAYBACK_SESSIONS,
  );
}

/** One session's inputs one after another: the audio each received, and the same player the stall figures use (`InputView.playback`). */
function playbackChart(session: ReportSession): ChartSpec {
  const s = { ...session, timeline: session.timeline! };
  const t0 =
    s.timeline.transport.kind === 'http' ? (s.timeline.transport.requests[0]?.startMs ?? s.timeline.startMs) : (s.timeline.sent[0]?.t ?? s.timeline.startMs);
  const at = (t: number): number => round((t - t0) / 1000, 4);
  const inputs = sessionView(s.timeline).inputs.filter((i) => i.audio.chunks.length > 0);
  const series: SeriesSpec[] = [];
  const received: { x: number[]; y: number[] } = { x: [0], y: [0] };
  const played: { x: number[]; y: number[] } = { x: [], y: [] };
  const stalls: { x: number[]; y: number[]; notes: string[] } = { x: [], y: [], notes: [] };
  let before = 0;
  for (const input of inputs) {
    let total = before;
    for (const chunk of input.audio.chunks) {
      total += chunk.ms;
      received.x.push(at(chunk.t));
      received.y.push(round(total / 1000, 4));
    }
    const playback = input.playback();
    if (playback.startMs !== undefined) {
      // The play head moves at real time from the start, and waits out each stall.
      let position = before;
      let clock = playback.startMs;
      played.x.push(at(clock));
      played.y.push(round(position / 1000, 4));
      for (const stall of playback.stalls) {
        position += stall.t - clock;
        played.x.push(at(stall.t), at(stall.t + stall.ms));
        played.y.push(round(position / 1000, 4), round(position / 1000, 4));
        stalls.x.push(at(stall.t));
        stalls.y.push(round(position / 1000, 4));
        stalls.notes.push(`stall of ${round(stall.ms, 1)} ms`);
        clock = stall.t + stall.ms;
      }
      played.x.push(at(playback.endMs!));
      played.y.push(round(total / 1000, 4));
    }
    before = total;
  }
  series.push({ label: 'audio received', color: COLORS.audio, style: 'step', ...received });
  if (played.x.length > 0) series.push({ label: 'audio played', color: COLORS.final, style: 'line', ...played });
  if (stalls.x.length > 0) series.push({ label: 'stall', color: COLORS.error, style: 'points', size: 9, ...stalls });
  return {
    id: `playback-${s.index}`,
    x: { label: 'time since the request', unit: 's', fromZero: true },
    y: { label: 'audio', unit: 's', fromZero: true },
    series,
    rules: [],
  };
}

/** Stalls against load, when the report has the catalog's playback entries and more than one level, each unless the load curves already draw it. */
function stallCharts(report: Report): ChartSpec[] {
  if (report.benchmarks.length < 2) return [];
  const levels = benchmarksByLevel(report);
  const axis = loadAxis(report);
  const xs = levels.map((b) => loadLevel(b.profile));
  const drawn = new Set(curveMetrics(report, CURVE_METRICS).map((d) => d.name));
  return STALL_METRICS.filter((name) => !drawn.has(name) && report.metricDefinitions.some((d) => d.name === name)).map((name) => ({
    id: `load-${name}-stalls`,
    x: axis.whole ? { label: axis.label, unit: axis.unit, whole: true } : { label: axis.label, unit: axis.unit, fromZero: true },
    y: { label: name, unit: name.endsWith('_ms') ? 'ms' : '', fromZero: true },
    rules: [],
    series: (['mean', 'p95', 'max'] as const).map((q) => {
      const points = levels.flatMap((b, i) => {
        const value = b.summary.metrics[name]?.[q];
        return value === undefined || value === null ? [] : [{ x: xs[i]!, y: round(value, 3) }];
      });
      return {
        label: q,
        color: q === 'mean' ? COLORS.p50 : q === 'p95' ? COLORS.p95 : COLORS.p99,
        style: 'line-points' as const,
        x: points.map((p) => p.x),
        y: points.map((p) => p.y),
      };
    }),
  }));
}
