import { audioSeconds, type MonoAudio } from '../audio/decode.js';

/** A word of the reference transcript and where it is spoken, in seconds from the audio start. */
export interface WordTiming {
  word: string;
  start: number;
  end: number;
  /** Who says it, where the dataset knows (a synthesized conversation's words do): a label of the sample's speaker turns. */
  speaker?: string;
}

/** A stretch of speech, in seconds from the audio start. */
export interface SpeechSpan {
  start: number;
  end: number;
}

/**
 * Who spoke when: one speaker's stretch of speech, in ms from the audio start. Labels
 * name speakers within one recording; turns of different speakers may overlap.
 */
export interface SpeakerTurn {
  speaker: string;
  startMs: number;
  endMs: number;
}

/** A recording with its reference: what transcription (and speech-to-speech) sends. */
export interface Sample {
  kind?: 'audio';
  /** Stable id: the dataset's own id, else the file name without extension, else `<split>-<row in split>`. */
  id: string;
  split: string;
  /** The audio file, as given; for Parquet and Arrow, the shard and row holding the audio. */
  path: string;
  /** Reference transcript, or null when the dataset has none for this sample. */
  text: string | null;
  words?: WordTiming[];
  /** Language as the dataset labels it (e.g. `en`, `en-US`). */
  language?: string;
  /** Speech to speech: the agent's instructions for this sample's session. */
  instructions?: string;
  /** Speech to speech: a reference voice (vLLM-Omni's `ref_audio`), the audio file's bytes as the dataset holds them, checked to decode. */
  referenceAudio?: Uint8Array;
  segments?: SpeechSpan[];
  /** Reference speaker turns (RTTM, or the manifest's or table's turn fields), in start order. */
  turns?: SpeakerTurn[];
  /** Mono audio: at the file's own rate, or at a run's rate when the run prepared it as it loaded (see `sourceRate`). */
  audio: MonoAudio;
  /** The file's own rate, when `audio` is at another. */
  sourceRate?: number;
  /** The audio file's bytes as the dataset holds them, when the loader was asked to keep them. */
  file?: Uint8Array;
}

/**
 * A prompt to speak: what speech generation sends. It has no audio; a transcription
 * dataset's references make prompts too.
 */
export interface TextSample {
  kind: 'text';
  /** The dataset's own id, else `line-<n>` (text file, JSONL) or the audio sample's id. */
  id: string;
  split: string;
  /** Where the prompt is: the file, with its line or row. */
  path: string;
  text: string;
  /** The voice the row asks for (JSONL `voice`), for dialects that take one per request. */
  voice?: string;
  language?: string;
}

/** An input problem: which file (and JSONL line or table row), and why the sample was skipped. */
export interface DatasetProblem {
  file: string;
  /** 1-based line of a JSONL manifest. */
  line?: number;
  /** 0-based row of a Parquet or Arrow table. */
  row?: number;
  reason: string;
  /** Set when no sample was skipped for it (a bad line of an RTTM file, whose other lines are read). */
  noSampleSkipped?: true;
}

export type DatasetKind = 'folder' | 'jsonl' | 'parquet' | 'arrow' | 'text';

/** Which bytes a Hugging Face Hub dataset's samples came from: a rerun at `commit` reads the same ones. */
export interface HubOrigin {
  id: string;
  config: string;
  split: string;
  /** The revision read: the one asked for (default main), or `refs/convert/parquet`, the Hub's Parquet conversion. */
  revision: string;
  commit: string;
}

/** Recordings (the default), or prompts for speech generation. */
export interface Dataset<S extends Sample | TextSample = Sample> {
  root: string;
  kind: DatasetKind;
  samples: S[];
  problems: DatasetProblem[];
  /** Samples the selection options left out (split, language, duration bounds); not problems. */
  filteredOut: number;
  /** sha256 over every sample's id, audio bytes and reference text (prompts: id and text), in dataset order. */
  fingerprint: string;
  /** Where on the Hugging Face Hub the dataset was read (`--data hf:<id>`). */
  hub?: HubOrigin;
}

export interface DatasetSummary {
  root: string;
  kind: DatasetKind;
  /** Where on the Hugging Face Hub the dataset was read. */
  hub?: HubOrigin;
  fingerprint: string;
  count: number;
  /** Samples skipped for a problem. */
  skipped: number;
  filteredOut: number;
  totalAudioS: number;
  shortestS: number;
  longestS: number;
  sampleRatesHz: number[];
  /** Samples per split. */
  splits: Record<string, number>;
  /** Samples per language label; samples without one are not counted here. */
  languages: Record<string, number>;
  withReference: number;
  withWordTimings: number;
  /** Samples with reference speaker turns; absent when none has them (and in reports written before turns were read). */
  withSpeakerTurns?: number;
  /** Seconds of speech per speaker label, summed over samples (a label names a speaker within each recording); with `withSpeakerTurns`. */
  speakers?: Record<string, number>;
}

/** What a summary needs of a sample, so it can be built without holding audio. */
export interface SampleFacts {
  split: string;
  language?: string;
  durationS: number;
  /** Absent for a prompt, which has no audio. */
  sampleRate?: number;
  hasReference: boolean;
  hasWordTimings: boolean;
  /** Seconds of speech per speaker in this sample's turns; absent without turns. */
  speechBySpeakerS?: Record<string, number>;
}

/** A prompt's facts: no audio, so no duration and no rate. */
export function sampleFacts(sample: Sample | TextSample): SampleFacts {
  const audio = sample.kind === 'text' ? undefined : sample.audio;
  return {
    split: sample.split,
    ...(sample.language !== undefined ? { language: sample.language } : {}),
    durationS: audio ? audioSeconds(audio) : 0,
    ...(audio ? { sampleRate: (sample.kind !== 'text' && sample.sourceRate) || audio.sampleRate } : {}),
    hasReference: sample.text !== null,
    hasWordTimings: sample.kind !== 'text' && sample.words !== undefined,
    ...(sample.kind !== 'text' && sample.turns ? { speechBySpeakerS: speechBySpeakerS(sample.turns) } : {}),
  };
}

export function summarizeDataset(dataset: Dataset<Sample | TextSample>): DatasetSummary {
  return summarizeFacts(dataset, dataset.samples.map(sampleFacts));
}

export function summarizeFacts(dataset: Omit<Dataset, 'samples'>, facts: SampleFacts[]): DatasetSummary {
  const durations = facts.map((f) => f.durationS);
  return {
    root: dataset.root,
    kind: dataset.kind,
    ...(dataset.hub ? { hub: dataset.hub } : {}),
    fingerprint: dataset.fingerprint,
    count: facts.length,
    skipped: dataset.problems.filter((p) => !p.noSampleSkipped).length,
    filteredOut: dataset.filteredOut,
    totalAudioS: durations.reduce((sum, d) => sum + d, 0),
    shortestS: facts.length > 0 ? durations.reduce((a, b) => Math.min(a, b)) : 0,
    longestS: facts.length > 0 ? durations.reduce((a, b) => Math.max(a, b)) : 0,
    sampleRatesHz: [...new Set(facts.flatMap((f) => (f.sampleRate === undefined ? [] : [f.sampleRate])))].sort((a, b) => a - b),
    splits: tally(facts.map((f) => f.split)),
    languages: tally(facts.flatMap((f) => (f.language !== undefined ? [f.language] : []))),
    withReference: facts.filter((f) => f.hasReference).length,
    withWordTimings: facts.filter((f) => f.hasWordTimings).length,
    ...speakerSummary(facts),
  };
}

function speakerSummary(facts: SampleFacts[]): Pick<DatasetSummary, 'withSpeakerTurns' | 'speakers'> {
  const withTurns = facts.filter((f) => f.speechBySpeakerS !== undefined);
  if (withTurns.length === 0) return {};
  return { withSpeakerTurns: withTurns.length, speakers: sumBySpeaker(withTurns.flatMap((f) => Object.entries(f.speechBySpeakerS!))) };
}

/** Each speaker's speech in seconds: the union of its turns, so a speaker's own overlapping turns count once. */
export function speechBySpeakerS(turns: readonly SpeakerTurn[]): Record<string, number> {
  const bySpeaker = new Map<string, SpeakerTurn[]>();
  for (const t of turns) bySpeaker.set(t.speaker, [...(bySpeaker.get(t.speaker) ?? []), t]);
  const speech: Array<[string, number]> = [];
  for (const [speaker, own] of bySpeaker) {
    let totalMs = 0;
    let coveredTo = -Infinity;
    for (const t of [...own].sort((a, b) => a.startMs - b.startMs)) {
      totalMs += Math.max(0, t.endMs - Math.max(t.startMs, coveredTo));
      coveredTo = Math.max(coveredTo, t.endMs);
    }
    speech.push([speaker, totalMs / 1000]);
  }
  return sumBySpeaker(speech);
}

function sumBySpeaker(entries: Array<[string, number]>): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const [speaker, s] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) sums[speaker] = (sums[speaker] ?? 0) + s;
  return sums;
}

function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of [...values].sort()) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
