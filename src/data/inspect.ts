import { plural } from '../util/plural.js';
import { printable } from '../util/printable.js';
import type { DatasetProblem, DatasetSummary } from './dataset.js';
import { sampleFacts, summarizeFacts } from './dataset.js';
import { DatasetError, describeProblem } from './errors.js';
import { nothingUsable, openDataset, readSelection, type DatasetOptions } from './load.js';

export interface DatasetInspection {
  summary: DatasetSummary;
  problems: DatasetProblem[];
}

/** A dataset with no usable sample, refused as a run refuses it; the inspection lists every reason. */
export class UnusableDatasetError extends DatasetError {
  constructor(
    message: string,
    readonly inspection: DatasetInspection,
  ) {
    super(message);
  }
}

/**
 * Reads a dataset as `loadDataset` would, with the same selection and checks, but
 * keeps only each sample's facts, so memory stays flat however much audio there is.
 * Throws an UnusableDatasetError, with the same line as loading, when no sample is usable.
 */
export async function inspectDataset(path: string, options: DatasetOptions = {}): Promise<DatasetInspection> {
  const { dataset, items } = await readSelection(await openDataset(path, options), options, sampleFacts);
  const inspection = { summary: summarizeFacts(dataset, items), problems: dataset.problems };
  if (items.length === 0) throw new UnusableDatasetError(nothingUsable(dataset), inspection);
  return inspection;
}

/** Each label's speech, as `A 12.3 s`; labels are per recording, so one label over several recordings sums them. */
function speakerSpeech(speakers: Record<string, number>): string {
  const labels = Object.entries(speakers);
  return `${plural(labels.length, 'label')}: ${labels.map(([label, s]) => `${label} ${s.toFixed(1)} s`).join(', ')}`;
}

export function renderInspection({ summary: s, problems }: DatasetInspection): string {
  const counts = (record: Record<string, number>): string =>
    Object.entries(record)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none labelled';
  const lines = [
    `dataset      ${s.root} (${s.kind})`,
    `fingerprint  ${s.fingerprint}`,
    `samples      ${s.count} usable, ${s.skipped} skipped for problems, ${s.filteredOut} left out by the selection`,
    `audio        ${s.totalAudioS.toFixed(1)} s in all, ${s.shortestS.toFixed(2)}–${s.longestS.toFixed(2)} s each, at ${s.sampleRatesHz.join(', ') || '–'} Hz`,
    `splits       ${counts(s.splits)}`,
    `languages    ${counts(s.languages)}`,
    `references   ${s.withReference} with text, ${s.withWordTimings} with word timings, ${s.withSpeakerTurns ?? 0} with speaker turns`,
    ...(s.speakers ? [`speakers     ${speakerSpeech(s.speakers)}`] : []),
    problems.length > 0 ? `problems (${problems.length}):` : 'problems     none',
    ...problems.map((p) => `  ${describeProblem(p)}`),
  ];
  // File names, labels and the reasons quoting a file's content are the dataset's, not voxbench's.
  return `${lines.map(printable).join('\n')}\n`;
}
