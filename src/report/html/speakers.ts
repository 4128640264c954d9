import { resamplesText, type Interval } from '../../metrics/bootstrap.js';
import { sessionTurns } from '../../metrics/diarization/session.js';
import type { SpeakerTurn } from '../../timeline/types.js';
import { benchmarksByLevel } from '../levels.js';
import type { Benchmark, Report, ReportSession } from '../schema.js';
import { speakerRulesLine } from '../speaker-lines.js';
import type { ChartSpec, SeriesSpec } from './chart-spec.js';
import { round } from './downsample.js';
import { formatPercent } from './format.js';
import { html } from './markup.js';
import { COLORS } from './palette.js';
import { note, table, type Section } from './section.js';

/** Sessions offered in the timeline's selector, worst DER first. */
const TIMELINE_SESSIONS = 12;
/** Turns drawn per side: a long recording's first ones, enough to read who spoke when. */
const TURNS_DRAWN = 1000;

const withCi = (value: number | null, ci: Interval | null): string =>
  ci ? `${formatPercent(value)} [${formatPercent(ci[0])}, ${formatPercent(ci[1])}]` : formatPercent(value);

/**
 * Speaker attribution, where the report has it (docs/diarization.md): each level's DER
 * and its parts, JER, word speaker error and speaker stability with their intervals,
 * the rules they were scored by, and who spoke when in the reference against the
 * server's labels for one session, the worst DER first.
 */
export function speakersSection(report: Report): Section | undefined {
  const levels = benchmarksByLevel(report).filter((b) => b.summary.diarization);
  if (levels.length === 0) return undefined;
  const rows = levels.map(({ label, summary }) => {
    const s = summary.diarization!;
    return [
      label,
      String(s.recordings),
      String(s.unlabelled),
      withCi(s.der, s.derCi95),
      formatPercent(s.missed),
      formatPercent(s.falseAlarm),
      formatPercent(s.confusion),
      withCi(s.jer, s.jerCi95),
      withCi(s.wordSpeakerError.value, s.wordSpeakerError.ci95),
      withCi(s.speakerRelabelled.value, s.speakerRelabelled.ci95),
    ];
  });
  const shown = speakerSessions(levels).map((entry, i) => ({ ...entry, id: `speakers-${i}` }));
  const charts = shown.map(({ id, session }) => turnsChart(id, session));
  const ci = `Its 95% interval from ${resamplesText('inputs')}.`;
  return {
    id: 'speakers',
    title: 'Who spoke when',
    charts,
    body: html`${table(
      [
        'level',
        { label: 'inputs', title: 'Inputs with reference speaker turns, scored once the server labelled any input.' },
        { label: 'without labels', title: 'Inputs with reference speaker turns whose words the server gave no speaker: all their speech is missed.' },
        { label: 'DER [95% CI]', title: `Missed speech, false alarm and speaker confusion over scored reference speaker time. ${ci}` },
        { label: 'missed', title: 'Reference speaker time the server gave no speaker, over scored reference speaker time.' },
        { label: 'false alarm', title: 'Server speaker time beyond the reference speakers talking, over scored reference speaker time.' },
        { label: 'confusion', title: 'Reference speaker time given to the wrong speaker after one-to-one pairing, over scored reference speaker time.' },
        {
          label: 'JER [95% CI]',
          title: `Jaccard error rate: the mean over reference speakers of (missed + false alarm) over the union with their paired speaker. ${ci}`,
        },
        { label: 'word speaker error [95% CI]', title: `Recognized words given the wrong speaker, over words said in a reference turn. ${ci}` },
        { label: 'relabelled [95% CI]', title: `Words whose speaker changed after the server first emitted them. ${ci}` },
      ],
      rows,
      'speakers',
    )}
${note(
  'DER counts speaker time: two speakers at once for a second are two seconds of reference speech. Its parts add up to it. ' +
    "Each speaker's words join into turns that end where another speaker's word starts or at a pause of 500 ms; speakers are paired one to one for the most time together; the final labels are scored. " +
    'Word speaker error and relabelled count words, each placed at its midpoint, with no collar and overlap scored whatever the rules. ' +
    'Corpus figures pool every input.',
)}
${speakerRulesLine(report.config.diarization).map((line) => note(`Scored by the rules: ${line.replace(/^speaker scoring: /, '')}.`))}
${
  shown.length > 0
    ? html`${note(
        'Reference turns (blue, above) against the turns of the words the server labelled (amber, below), on the audio clock of the session. Hover a bar end to read its speaker and times.',
      )}
<label class="switch">Session <select data-switch="speakers">${shown.map(
        ({ id, level, session, der }, i) =>
          html`<option value="${id}"${i === 0 ? html` selected` : ''}>${level} · #${session.index} · DER ${formatPercent(der)}</option>`,
      )}</select></label>
<figure class="chart-card wide"><div class="chart" data-chart="${shown[0]!.id}" data-switch-target="speakers"></div><div class="readout" aria-live="polite"></div></figure>`
    : ''
}`,
  };
}

/** The sessions the timeline's selector offers: the worst DER first. */
export function speakerSessions(levels: readonly Benchmark[]): Array<{ level: string; session: ReportSession; der: number }> {
  return levels
    .flatMap((b) =>
      b.sessions.flatMap((s) => (typeof s.metrics.session['der'] === 'number' ? [{ level: b.label, session: s, der: s.metrics.session['der'] }] : [])),
    )
    .sort((a, b) => b.der - a.der)
    .slice(0, TIMELINE_SESSIONS);
}

/** One row per speaker: the reference's above, the server's below, each turn a bar. */
function turnsChart(id: string, session: ReportSession): ChartSpec {
  const { reference, hypothesis } = sessionTurns(session.timeline!);
  const rows = [...rowsOf('ref', reference, COLORS.sideA), ...rowsOf('server', hypothesis, COLORS.sideB)];
  const y = (i: number): number => rows.length - 1 - i;
  const series: SeriesSpec[] = rows.map((row, i) => ({
    label: row.label,
    color: row.color,
    style: 'bars',
    size: 12,
    x: row.turns.flatMap((t) => [round(t.startMs / 1000, 3), round(t.endMs / 1000, 3)]),
    y: row.turns.flatMap(() => [y(i), y(i)]),
    notes: row.turns.flatMap((t) => [`from ${round(t.startMs / 1000, 3)} s`, `to ${round(t.endMs / 1000, 3)} s`]),
  }));
  return {
    id,
    x: { label: 'audio time', unit: 's', fromZero: true },
    // The rows name themselves: an axis title would sit on top of them.
    y: { label: '', unit: '', min: -0.6, max: rows.length - 0.4, ticks: rows.map((row, i) => ({ value: y(i), label: row.label })) },
    series,
    rules: [],
    legend: false,
    height: 90 + 28 * rows.length,
  };
}

/** Each speaker's first turns, speakers in order of their first turn. */
function rowsOf(side: string, turns: readonly SpeakerTurn[], color: string): Array<{ label: string; color: string; turns: SpeakerTurn[] }> {
  const drawn = [...turns].sort((a, b) => a.startMs - b.startMs).slice(0, TURNS_DRAWN);
  const speakers = [...new Set(drawn.map((t) => t.speaker))];
  return speakers.map((speaker) => ({ label: `${side} ${speaker}`, color, turns: drawn.filter((t) => t.speaker === speaker) }));
}
