import type { CorpusSpeakers } from '../metrics/diarization/session.js';
import type { DiarizationRecord } from '../metrics/diarization/rules.js';
import type { Interval } from '../metrics/bootstrap.js';
import { fixed } from './fixed.js';
import { plural } from '../util/plural.js';

const percent = (x: number | null): string => (x === null ? 'n/a' : `${fixed(x * 100, 2)}%`);
const ci = (interval: Interval | null): string => (interval ? ` (95% CI ${percent(interval[0])} to ${percent(interval[1])})` : '');

/** DER's parts as they add up to it; without scored reference speech they are no share of anything. */
const partsOf = ({ missed, falseAlarm, confusion }: CorpusSpeakers): string =>
  missed === null || falseAlarm === null || confusion === null
    ? ' (no scored reference speech: no parts)'
    : ` = missed ${percent(missed)} + false alarm ${percent(falseAlarm)} + confusion ${percent(confusion)}`;

/** The inputs scored, and how many of them the server gave no label (counted as missed speech). */
export const inputsScored = ({ recordings, unlabelled }: Pick<CorpusSpeakers, 'recordings' | 'unlabelled'>): string =>
  `${plural(recordings, 'input')}${unlabelled > 0 ? `, ${unlabelled} without labels (missed speech)` : ''}`;

/** A level's speaker attribution pooled over its corpus, with intervals; none when nothing was scored. */
export function speakerLines(speakers: CorpusSpeakers | undefined): string[] {
  if (!speakers) return [];
  return [
    `speakers: corpus DER ${percent(speakers.der)}${ci(speakers.derCi95)}${partsOf(speakers)} · ` +
      `JER ${percent(speakers.jer)}${ci(speakers.jerCi95)} · word speaker error ${percent(speakers.wordSpeakerError.value)}${ci(speakers.wordSpeakerError.ci95)} · ` +
      `relabelled ${percent(speakers.speakerRelabelled.value)} over ${inputsScored(speakers)}`,
  ];
}

/** The rules speaker attribution was scored by, and the tools whose numbers they match: said wherever the figures are. */
export function speakerRulesLine(record: DiarizationRecord | undefined): string[] {
  if (!record) return [];
  const tools = [...new Set([...record.matches.der, ...record.matches.jer])];
  return [`speaker scoring: ${record.description}; matches ${tools.length > 0 ? tools.join('; ') : 'no reference tool'}`];
}

/**
 * The Markdown table of each level's pooled speaker figures, then the rules they were
 * scored by; none when no level has them. `text` escapes a cell as the page does.
 */
export function speakerTable(
  levels: ReadonlyArray<{ label: string; summary: { diarization?: CorpusSpeakers } }>,
  record: DiarizationRecord | undefined,
  text: (cell: string) => string,
): string[] {
  const scored = levels.filter((b) => b.summary.diarization);
  if (scored.length === 0) return [];
  const rows = scored.map(({ label, summary }) => {
    const s = summary.diarization!;
    const cells = [`${percent(s.der)}${ci(s.derCi95)}`, percent(s.missed), percent(s.falseAlarm), percent(s.confusion), `${percent(s.jer)}${ci(s.jerCi95)}`];
    const words = [s.wordSpeakerError, s.speakerRelabelled].map((f) => `${percent(f.value)}${ci(f.ci95)}`);
    return `| ${text(label)} | ${s.recordings} | ${s.unlabelled} | ${[...cells, ...words].join(' | ')} |`;
  });
  return [
    '',
    '| level | inputs | without labels | DER | missed | false alarm | confusion | JER | word speaker error | relabelled |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    ...speakerRulesLine(record).map((line) => `\n${text(line)}`),
  ];
}

/**
 * What a run that scores speakers leads with, its answer before any latency: corpus DER
 * and word speaker error with their intervals, e.g.
 * `DER 14.16% (95% CI 9.80% to 18.02%), word speaker error 19.05% (95% CI …)`.
 */
export function speakerLead(speakers: CorpusSpeakers): string {
  return `DER ${percent(speakers.der)}${ci(speakers.derCi95)}, word speaker error ${percent(speakers.wordSpeakerError.value)}${ci(speakers.wordSpeakerError.ci95)}`;
}
