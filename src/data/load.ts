import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { AudioDecodeError, audioSeconds, decodeAudio, type MonoAudio } from '../audio/decode.js';
import { DECODE_IN_THREAD, type AudioReader } from '../audio/prepared-source.js';
import { DEFAULT_SPEECH_RMS, loudestFrameRms, pcm16WavFacts } from '../audio/energy.js';
import type { DatasetColumns, Need } from './columns.js';
import type { Dataset, DatasetProblem, Sample, SpeakerTurn } from './dataset.js';
import { DatasetError, describePlace, describeProblem } from './errors.js';
import { AUDIO_EXTENSIONS, folderSource } from './folder.js';
import type { HubOptions } from './hub/source.js';
import { isHubDataset } from './hub/id.js';
import { DatasetRttm } from './rttm.js';
import { languageMatches, seededOrder } from './select.js';
import type { AudioRead, DatasetSource, Entry } from './source.js';
import { timingsBeyondAudio } from './timings.js';

export interface DatasetOptions {
  /** Which columns (Parquet, Arrow) or keys (JSONL) hold the audio, text, id and language; unset ones are found by common names. */
  columns?: DatasetColumns;
  /** Keep only this split (e.g. `test`); of a Hub dataset, read only this split's files. */
  split?: string;
  /** A Hub dataset (`hf:<owner>/<name>`): its config and revision, and where downloads are kept. */
  hub?: HubOptions;
  /** Keep only samples labelled with this language: `en` matches `en` and `en-US`. */
  language?: string;
  /** Keep only samples at least this long, seconds. */
  minDurationS?: number;
  /** Keep only samples at most this long, seconds. */
  maxDurationS?: number;
  /** Shuffle with this seed (the same seed, the same order); unset keeps the dataset's order. */
  seed?: number;
  /** Stop after this many usable samples, taken in (shuffled) order. */
  maxSamples?: number;
  /** An RTTM file of reference speaker turns for the whole dataset, its file ids matched to sample ids; a sample's own turns come first. */
  rttm?: string;
  /** Throw the first problem as a DatasetError (with the message it would be recorded with) instead of skipping the sample. */
  strict?: boolean;
  /** Keep each sample's file as the dataset holds it (`Sample.file`), for requests that upload it unchanged. */
  keepFiles?: boolean;
  /** How each file becomes a sample's audio; default decoded at its own rate, in this thread. A run's reader prepares it at the run's rate, cached and across threads. */
  audio?: AudioReader;
}

const MANIFEST_EXTENSIONS = new Set(['.jsonl', '.ndjson', '.json']);

/**
 * Loads a dataset of any supported kind, found from the path: a folder of audio files
 * with `.txt` transcripts, a JSONL manifest, Hugging Face Parquet shards (a file or a
 * folder), a `save_to_disk` folder (Arrow) or a dataset on the Hugging Face Hub
 * (`hf:<owner>/<name>`, read by range through the download cache). Samples are chosen from the listing
 * before any audio is read, and audio is decoded only for the chosen ones.
 */
export async function loadDataset(path: string, options: DatasetOptions = {}): Promise<Dataset> {
  return loadFromSource(await openDataset(path, options), options);
}

/** Loads a folder dataset, whatever else the folder holds. */
export function loadFolderDataset(dir: string, options: DatasetOptions = {}): Promise<Dataset> {
  return loadFromSource(folderSource(dir), options);
}

async function loadFromSource(source: DatasetSource, options: DatasetOptions): Promise<Dataset> {
  const { dataset, items } = await readSelection(source, options, (sample) => sample);
  if (items.length === 0) throw new DatasetError(nothingUsable(dataset));
  return { ...dataset, samples: items };
}

/**
 * The kind of dataset at `path` (or the Hub dataset it names), as a source to read. Each kind's reader is loaded
 * only for its kind: a run on a folder (the bundled samples) need not load the Hub's, Parquet's and Arrow's.
 */
export async function openDataset(path: string, options: Pick<DatasetOptions, 'columns' | 'split' | 'hub'> = {}, need: Need = 'audio'): Promise<DatasetSource> {
  if (isHubDataset(path)) return (await import('./hub/source.js')).hubSource(path, options, need);
  const columns = options.columns ?? {};
  let isFile: boolean;
  try {
    isFile = (await stat(path)).isFile();
  } catch (err) {
    throw new DatasetError(`${path}: cannot read the dataset (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (isFile) {
    const ext = extname(path).toLowerCase();
    if (MANIFEST_EXTENSIONS.has(ext)) return (await import('./manifest.js')).manifestSource(path, columns, need);
    if (ext === '.parquet') return (await import('./parquet.js')).parquetSource(path, columns, true, need);
    if (ext === '.arrow') return (await import('./arrow.js')).arrowSource(path, columns, true, need);
    throw new DatasetError(`${path}: not a dataset; give a folder of audio files, a .jsonl manifest, a .parquet file or a Hugging Face save_to_disk folder`);
  }
  const names = await readdir(path);
  if (names.includes('dataset_dict.json') || names.includes('state.json')) return (await import('./arrow.js')).arrowSource(path, columns, false, need);
  if (names.some((n) => AUDIO_EXTENSIONS.has(extname(n).toLowerCase()))) return folderSource(path);
  if ((await readdir(path, { recursive: true })).some((n) => n.endsWith('.parquet')))
    return (await import('./parquet.js')).parquetSource(path, columns, false, need);
  return folderSource(path);
}

/** A dataset read down to what `keep` takes of each chosen sample (all of it, or facts without the audio). */
export interface Selection<T> {
  dataset: Omit<Dataset, 'samples'>;
  items: T[];
}

/** Records a problem, or with `strict` throws it. */
export type Report = (problem: DatasetProblem) => void;

/** The problem recorder of `options`: into `problems`, or with `strict` thrown at once. */
export function problemRecorder(options: DatasetOptions, problems: DatasetProblem[]): Report {
  return (p) => {
    if (options.strict) throw new DatasetError(describeProblem(p));
    problems.push(p);
  };
}

/**
 * Lists the samples, applies split and language, orders them (seeded shuffle), then
 * decodes candidates in that order until `maxSamples` pass the audio checks and
 * duration bounds. `keep` lets a caller drop each sample's audio once it is checked.
 */
export async function readSelection<T>(source: DatasetSource, options: DatasetOptions, keep: (sample: Sample) => T): Promise<Selection<T>> {
  checkOptions(options);
  const problems: DatasetProblem[] = [];
  const report = problemRecorder(options, problems);
  const listed = await listCandidates(options.rttm === undefined ? source : withDatasetRttm(source, options.rttm), options, report);
  const ordered = options.seed === undefined ? listed.candidates : seededOrder(listed.candidates, options.seed);
  const read = await readInOrder(source, ordered, options, report, keep);
  const hash = createHash('sha256');
  for (const k of read.kept) {
    hash
      .update(k.id)
      .update('\0')
      .update(k.digest)
      .update('\0')
      .update(k.text ?? '')
      .update('\0');
    // Only a sample with turns adds them, so fingerprints of datasets without speakers stay as they were.
    if (k.turns) hash.update(JSON.stringify(k.turns)).update('\0');
  }
  return {
    dataset: {
      root: source.root,
      kind: source.kind,
      ...(source.hub ? { hub: source.hub } : {}),
      problems: inDatasetOrder(problems, listed.files),
      filteredOut: listed.filteredOut + read.filteredOut,
      fingerprint: `sha256:${hash.digest('hex')}`,
    },
    items: read.kept.map((k) => k.item),
  };
}

/** `source` with the turns of a dataset-wide RTTM given to the entries that have none of their own. */
function withDatasetRttm(source: DatasetSource, rttm: string): Pick<DatasetSource, 'root' | 'entries'> {
  return {
    root: source.root,
    async *entries(problem) {
      const shared = await DatasetRttm.read([rttm], problem);
      for await (const entry of source.entries(problem)) {
        const turns = shared.take(entry.id);
        yield entry.turns || !turns ? entry : { ...entry, turns };
      }
      shared.reportUnclaimed(problem);
    },
  };
}

/**
 * The entries that pass split and language, without duplicate ids, and the dataset's
 * files in the order the listing met them (to put problems in order, `inDatasetOrder`).
 */
export async function listCandidates(
  source: Pick<DatasetSource, 'root' | 'entries'>,
  options: DatasetOptions,
  report: Report,
): Promise<{ candidates: Entry[]; filteredOut: number; files: string[] }> {
  const candidates: Entry[] = [];
  const firstSeen = new Map<string, Entry['at']>();
  const splits = new Set<string>();
  const files = new Set<string>();
  let filteredOut = 0;
  const listingProblem: Report = (p) => {
    files.add(p.file);
    report(p);
  };
  for await (const entry of source.entries(listingProblem)) {
    files.add(entry.at.file);
    splits.add(entry.split);
    if (
      (options.split !== undefined && entry.split !== options.split) ||
      (options.language !== undefined && !languageMatches(entry.language, options.language))
    ) {
      filteredOut++;
      continue;
    }
    const first = firstSeen.get(entry.id);
    if (first) {
      report({ ...entry.at, reason: `duplicate sample id "${entry.id}" (first at ${describePlace(first)})` });
      continue;
    }
    firstSeen.set(entry.id, entry.at);
    candidates.push(entry);
  }
  if (options.split !== undefined && !splits.has(options.split) && splits.size > 0) {
    throw new DatasetError(`${source.root}: no split "${options.split}"; it has ${[...splits].sort().join(', ')}`);
  }
  return { candidates, filteredOut, files: [...files] };
}

/**
 * Problems by file, in the dataset's order of files, then by line or row. They are
 * found out of that order: a listing problem before the audio of an earlier row is
 * read, and audio is read in the shuffled order of a seed.
 */
export function inDatasetOrder(problems: readonly DatasetProblem[], files: readonly string[]): DatasetProblem[] {
  const rank = new Map(files.map((file, i) => [file, i]));
  const fileRank = (p: DatasetProblem): number => rank.get(p.file) ?? files.length;
  const place = (p: DatasetProblem): number => p.line ?? p.row ?? 0;
  // A stable sort: problems at one place keep the order they were found in.
  return [...problems].sort((a, b) => fileRank(a) - fileRank(b) || place(a) - place(b));
}

interface Kept<T> {
  rank: number;
  item: T;
  id: string;
  digest: string;
  text: string | null;
  turns?: SpeakerTurn[];
}

/**
 * Reads and checks `ordered` candidates in rounds until `maxSamples` are kept. Each
 * round is read in storage order, so a Parquet row group or Arrow batch is read once
 * per round; the kept samples come back in `ordered`'s order.
 */
async function readInOrder<T>(
  source: DatasetSource,
  ordered: Entry[],
  options: DatasetOptions,
  report: Report,
  keep: (sample: Sample) => T,
): Promise<{ kept: Kept<T>[]; filteredOut: number }> {
  const wanted = options.maxSamples ?? Infinity;
  let kept: Kept<T>[] = [];
  let problems = 0;
  /** A candidate passed over for a problem (null: left out by the duration bounds, counted at the end). */
  const passOver = (problem: DatasetProblem | null): void => {
    if (!problem) return;
    problems++;
    report(problem);
  };
  for (let next = 0; kept.length < wanted && next < ordered.length;) {
    // A round reads what is still wanted, and at least a few, so that a selection that
    // rejects many candidates does not reread a row group for each one.
    const round = ordered.slice(next, next + Math.max(wanted - kept.length, MIN_ROUND));
    const rank = new Map(round.map((entry, i) => [entry, next + i]));
    next += round.length;
    const passedOver: Array<{ rank: number; problem: DatasetProblem | null }> = [];
    const settle = async ({ read, checking }: { read: AudioRead; checking: ReturnType<typeof checkSample> }): Promise<void> => {
      const checked = await checking;
      if (checked !== null && typeof checked === 'object') {
        const { id, text, turns } = read.entry;
        kept.push({ rank: rank.get(read.entry)!, item: keep(checked.sample), id, digest: checked.digest, text, ...(turns ? { turns } : {}) });
        return;
      }
      const problem = checked === null ? null : { ...read.entry.at, reason: checked };
      // Without a cut every candidate is reached, so strict can stop at once.
      if (wanted === Infinity) passOver(problem);
      else passedOver.push({ rank: rank.get(read.entry)!, problem });
    };
    // Up to `parallel` files are being decoded at once (a reader with threads); they are settled in the order read.
    const inFlight: Array<Parameters<typeof settle>[0]> = [];
    for await (const read of source.audio([...round].sort((a, b) => a.order - b.order))) {
      inFlight.push({ read, checking: checkSample(read, options) });
      if (inFlight.length >= (options.audio?.parallel ?? 1)) await settle(inFlight.shift()!);
    }
    while (inFlight.length > 0) await settle(inFlight.shift()!);
    kept = kept.sort((a, b) => a.rank - b.rank).slice(0, wanted);
    // A candidate ranked after the last sample kept was read only because rounds are
    // batched; it was never needed, so it is not a problem but left out by maxSamples.
    const cutoff = kept.length === wanted ? kept[kept.length - 1]!.rank : Infinity;
    for (const { problem } of passedOver.filter((p) => p.rank < cutoff).sort((a, b) => a.rank - b.rank)) passOver(problem);
  }
  // Every candidate neither kept nor unusable was left out: by the duration bounds, or by the maxSamples cut.
  return { kept, filteredOut: ordered.length - kept.length - problems };
}

const MIN_ROUND = 32;

/** The decoded sample and a digest of its bytes, null when outside the duration bounds, or the reason it is unusable. */
async function checkSample(read: AudioRead, options: DatasetOptions): Promise<{ sample: Sample; digest: string } | null | string> {
  if ('error' in read) return read.error;
  const { entry, bytes } = read;
  // A PCM WAV is judged from its header and samples before it is decoded: a long silent file, or one out of bounds, costs no decode.
  const facts = pcm16WavFacts(bytes);
  if (facts && !facts.audible) return SILENT;
  if (facts && !entry.words && !entry.segments && !entry.turns && outOfBounds(facts.durationS, options)) return null;
  const digest = createHash('sha256').update(bytes).digest('hex');
  let audio: MonoAudio;
  let sourceRate: number | undefined;
  try {
    ({ audio, sourceRate } = await (options.audio ?? DECODE_IN_THREAD).read(bytes, entry.path, digest));
  } catch (err) {
    return err instanceof AudioDecodeError ? err.reason : `cannot decode the audio (${(err as Error).message})`;
  }
  if (loudestFrameRms(audio) < DEFAULT_SPEECH_RMS) return SILENT;
  const durationS = audioSeconds(audio);
  const badTimings =
    (entry.words && timingsBeyondAudio(entry.words, durationS, 'the word timings')) ||
    (entry.segments && timingsBeyondAudio(entry.segments, durationS, 'the speech segments')) ||
    (entry.turns &&
      timingsBeyondAudio(
        entry.turns.map((t) => ({ start: t.startMs / 1000, end: t.endMs / 1000 })),
        durationS,
        'the speaker turns',
      ));
  if (badTimings) return badTimings;
  if (outOfBounds(durationS, options)) return null;
  const { reference } = read;
  if (reference) {
    try {
      await decodeAudio(reference, entry.path);
    } catch (err) {
      return `the reference audio: ${err instanceof AudioDecodeError ? err.reason : (err as Error).message}`;
    }
  }
  const { at: _at, order: _order, referenceAudio: _path, ...fields } = entry;
  // What the session is sent beyond the audio counts in the fingerprint, so a resumed run sends the same.
  let fingerprint = digest;
  if (reference || entry.instructions !== undefined) {
    const extended = createHash('sha256').update(bytes);
    if (reference) extended.update('\0ref_audio\0').update(reference);
    if (entry.instructions !== undefined) extended.update('\0instructions\0').update(entry.instructions);
    fingerprint = extended.digest('hex');
  }
  // Copies: the bytes may be views of a whole Parquet row group.
  const sample: Sample = {
    ...fields,
    audio,
    ...(sourceRate !== undefined ? { sourceRate } : {}),
    ...(reference ? { referenceAudio: reference.slice() } : {}),
    ...(options.keepFiles ? { file: bytes.slice() } : {}),
  };
  return { sample, digest: fingerprint };
}

const SILENT = 'the audio is silent: no 20 ms frame reaches -40 dBFS';

const outOfBounds = (durationS: number, options: DatasetOptions): boolean =>
  durationS < (options.minDurationS ?? 0) || durationS > (options.maxDurationS ?? Infinity);

export function checkOptions(options: DatasetOptions): void {
  if (options.maxSamples !== undefined && !(Number.isInteger(options.maxSamples) && options.maxSamples >= 1)) {
    throw new DatasetError(`maxSamples must be a whole number of at least 1, got ${options.maxSamples}`);
  }
  if ((options.minDurationS ?? 0) > (options.maxDurationS ?? Infinity)) {
    throw new DatasetError(`the minimum duration (${options.minDurationS} s) is above the maximum (${options.maxDurationS} s)`);
  }
}

/** The line refusing a dataset with no usable sample, saying why each candidate was not used. */
export function nothingUsable(dataset: Omit<Dataset, 'samples'>, what = 'audio'): string {
  const why = [
    ...(dataset.problems.length > 0 ? [`${dataset.problems.length} skipped (first: ${describeProblem(dataset.problems[0]!)})`] : []),
    ...(dataset.filteredOut > 0 ? [`${dataset.filteredOut} left out by the selection options`] : []),
  ];
  return `${dataset.root}: no usable samples; ${why.length > 0 ? why.join('; ') : `it lists no ${what}`}`;
}
