import { AGENT_PLAYBACK_BUFFER_MS } from '../../metrics/s2s.js';
import { isSpeechTask, sessionEndMs, type ReceivedFrame, type Task } from '../../timeline/types.js';
import { sessionView } from '../../views/session-view.js';
import { headlineLatencies } from '../picks.js';
import type { Benchmark, Report, ReportSession } from '../schema.js';
import type { ChartSpec, SeriesSpec } from './chart-spec.js';
import { evenly, round } from './downsample.js';
import { formatNumber } from './format.js';
import { benchmarksByLevel } from '../levels.js';
import { html, type Html } from './markup.js';
import { metricTitle } from './metrics.js';
import { COLORS } from './palette.js';
import { note, table, type Section } from './section.js';

/** Sessions drawn per level: enough to see the spread, few enough to read each row. */
const WATERFALL_SESSIONS = 20;
/** Markers per session and kind: chunks every 100 ms make a bar long before this. */
const MARKERS_PER_SESSION = 150;
/** Transcript text kept per hover note and per table cell. */
const NOTE_CHARS = 240;

/**
 * The picture of lag: per session, audio chunks as they were sent and transcript
 * events as they arrived, on the session's own clock. The gap between the last
 * chunk of a turn and its final transcript is what a live user waits for. A
 * conversation (speech to speech) adds the agent's side: its audio as it arrived,
 * when a listener's playback of each answer starts, the user speaking over an answer,
 * and answers cancelled.
 */
export function waterfallSection(report: Report): Section {
  const levels = benchmarksByLevel(report);
  const shown = levels.map((b) => ({ benchmark: b, id: `waterfall-${report.benchmarks.indexOf(b)}`, sessions: waterfallSessions(b) }));
  const charts = shown.map(({ id, sessions }) => waterfallChart(id, sessions, report.config.task));
  const selected = shown[shown.length - 1]!;
  return {
    id: 'waterfall',
    title: 'Per-session waterfall',
    charts,
    body: html`${note(legendText(report))}
<label class="switch">Level <select data-switch="waterfall">${shown.map(
      ({ benchmark, id, sessions }) =>
        html`<option value="${id}"${id === selected.id ? html` selected` : ''}>${benchmark.label} (${sessions.length} of ${benchmark.sessions.length} sessions)</option>`,
    )}</select></label>
<figure class="chart-card wide"><div class="chart" data-chart="${selected.id}" data-switch-target="waterfall"></div><div class="readout" aria-live="polite"></div></figure>
${shown.map(({ id, sessions }) => html`<div data-switch-item="waterfall" data-key="${id}"${id === selected.id ? '' : html` hidden`}>${sessionTable(report, sessions)}</div>`)}`,
  };
}

/** The sessions a level's waterfall draws: taken evenly across it. */
export function waterfallSessions(benchmark: Benchmark): ReportSession[] {
  return evenly(benchmark.sessions, WATERFALL_SESSIONS);
}

/** What the markers mean, for the task's markers only. */
function legendText(report: Report): string {
  const { task } = report.config;
  const speech = isSpeechTask(task);
  const parts = [
    speech ? 'teal: audio received' : 'blue: audio chunks sent',
    ...(speech ? [] : ['amber: transcript text received', `black: ${task === 's2s' ? 'transcripts' : 'final transcripts'}`]),
    ...(task === 's2s'
      ? [
          `teal: the agent's audio received; green: playback of an answer starting (${AGENT_PLAYBACK_BUFFER_MS} ms buffered); purple: the user speaking over an answer, and answers cancelled`,
        ]
      : []),
    'red: server errors',
    'grey: session end',
  ];
  return (
    `Each row is one session, on its own clock from connect start. ${capitalized(parts.join('; '))}. ` +
    `Hover a marker to read its ${speech ? 'outcome' : 'text'}. Sessions are taken evenly across the level in start order.`
  );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function waterfallChart(id: string, sessions: readonly ReportSession[], task: Task): ChartSpec {
  // Row 0 at the top, as in a network waterfall.
  const row = (i: number): number => sessions.length - 1 - i;
  const collect = (kind: string, pick: (s: ReportSession) => Array<{ t: number; note?: string }>, offset: number, size: number, color: string): SeriesSpec => {
    const marks = sessions.flatMap((s, i) =>
      evenly(pick(s), MARKERS_PER_SESSION).map((m) => ({ ...m, x: round((m.t - s.timeline!.startMs) / 1000, 4), y: row(i) + offset })),
    );
    const notes = marks.map((m) => m.note ?? '');
    return { label: kind, color, style: 'points', size, x: marks.map((m) => m.x), y: marks.map((m) => m.y), ...(notes.some(Boolean) ? { notes } : {}) };
  };
  const eventsOf = (s: ReportSession, test: (e: ReceivedFrame) => boolean) =>
    s.timeline!.received.filter(test).map((e) => ({ t: e.t, note: clip(e.text ?? [e.code, e.message].filter(Boolean).join(': ')) }));
  const agent = (s: ReportSession) => sessionView(s.timeline!).responses;
  const series = [
    collect('audio chunk sent', (s) => s.timeline!.sent.flatMap((f) => (f.kind === 'audio' && !f.silence ? [{ t: f.t }] : [])), -0.18, 4, COLORS.audio),
    collect('silence sent while waiting', (s) => s.timeline!.sent.flatMap((f) => (f.silence ? [{ t: f.t }] : [])), -0.18, 3, COLORS.silence),
    collect(
      task === 's2s' ? 'agent audio received' : 'audio received',
      (s) => eventsOf(s, (e) => e.kind === 'audio' && Boolean(e.audioBytes)),
      0.02,
      4,
      COLORS.agentAudio,
    ),
    collect(
      'answer playback starts',
      (s) =>
        agent(s).flatMap((r) => {
          const { startMs } = r.playback(AGENT_PLAYBACK_BUFFER_MS);
          return startMs === undefined ? [] : [{ t: startMs, note: clip(r.transcript.text ?? r.text.text ?? '') }];
        }),
      0.02,
      8,
      COLORS.playback,
    ),
    collect(
      'user speaks over an answer',
      (s) => sessionView(s.timeline!).inputs.flatMap((v) => (v.bargeIn ? [{ t: v.bargeIn.speechSentMs }] : [])),
      -0.18,
      9,
      COLORS.bargeIn,
    ),
    collect('answer cancelled', (s) => eventsOf(s, (e) => e.kind === 'response_cancelled'), 0.02, 9, COLORS.bargeIn),
    collect('transcript text received', (s) => eventsOf(s, (e) => e.kind === 'text_delta' && Boolean(e.text)), 0.18, 5, COLORS.delta),
    collect('final transcript received', (s) => eventsOf(s, (e) => e.kind === 'text_final'), 0.18, 9, COLORS.final),
    collect('server error', (s) => eventsOf(s, (e) => e.kind === 'error' || e.kind === 'text_failed'), 0, 9, COLORS.error),
    // Every session ends, even one refused at connect, so every row has a marker.
    collect('session end', (s) => [{ t: sessionEndMs(s.timeline!), note: outcomeText(s) }], 0, 7, COLORS.end),
  ].filter((s) => s.x.length > 0);
  return {
    id,
    x: { label: 'time since connect start', unit: 's', fromZero: true },
    y: { label: 'session', unit: '', min: -0.6, max: sessions.length - 0.4, ticks: sessions.map((s, i) => ({ value: row(i), label: `#${s.index}` })) },
    series,
    rules: [],
    height: 90 + 24 * sessions.length,
  };
}

function sessionTable(report: Report, sessions: readonly ReportSession[]): Html {
  const latencies = headlineLatencies(report)
    .filter((d) => d.scope === 'input')
    .slice(0, 2);
  // Speech generation gets no transcript back; its column would be empty.
  const transcripts = !isSpeechTask(report.config.task);
  const perTurn = (s: ReportSession, name: string): string => {
    const values = s.metrics.inputs.flatMap((t) => (t[name] === undefined ? [] : [formatNumber(t[name], 1)]));
    return values.length > 0 ? values.join(', ') : '–';
  };
  return table(
    [
      'session',
      'outcome',
      ...latencies.map((d) => ({ label: `${d.name} per turn (${d.unit})`, title: metricTitle(report, d.name) })),
      ...(transcripts ? [report.config.task === 's2s' ? 'transcripts' : 'final transcripts'] : []),
    ],
    sessions.map((s) => [
      html`#${s.index}${s.phase === 'measured' ? '' : html` <span class="muted">${s.phase}</span>`}`,
      outcome(s),
      ...latencies.map((d) => perTurn(s, d.name)),
      ...(transcripts
        ? [
            html`<span class="transcript">${clip(
              s
                .timeline!.received.filter((e) => e.kind === 'text_final')
                .map((e) => e.text ?? '')
                .join(' ⏎ '),
            )}</span>`,
          ]
        : []),
    ]),
    'sessions',
  );
}

/** How the session ended, in words: its class or reason, stage, close code and message. */
function outcomeDetail(s: ReportSession): { chip: string; kind: 'pass' | 'warn' | 'fail'; detail: string } {
  const { outcome } = s;
  switch (outcome.status) {
    case 'completed':
      return { chip: 'completed', kind: 'pass', detail: '' };
    case 'incomplete':
      return { chip: 'incomplete', kind: 'warn', detail: `${outcome.reason} during ${outcome.stage}` };
    case 'failed': {
      const f = outcome.failure;
      const closed = s.timeline!.transport.kind === 'websocket' ? s.timeline!.transport.close : undefined;
      const close = closed ? ` · close ${closed.code}${closed.reason ? ` "${closed.reason}"` : ''}` : '';
      return { chip: f.class, kind: 'fail', detail: clip(`at ${f.stage}${close}: ${f.message}`) };
    }
  }
}

function outcome(s: ReportSession): Html {
  const { chip, kind, detail } = outcomeDetail(s);
  return html`<span class="chip ${kind}">${chip}</span> ${detail}`;
}

function outcomeText(s: ReportSession): string {
  const { chip, detail } = outcomeDetail(s);
  return detail ? `${chip} ${detail}` : chip;
}

function clip(text: string): string {
  return text.length <= NOTE_CHARS ? text : `${text.slice(0, NOTE_CHARS - 1)}…`;
}
