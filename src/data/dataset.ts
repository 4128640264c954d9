import type { MonoAudio } from '../audio/decode.js';

/** A word of the reference transcript and where it is spoken, in seconds from the audio start. */
export interface WordTiming {
  word: string;
  start: number;
  end: number;
}

/** A stretch of speech, in seconds from the audio start. */
export interface SpeechSpan {
  start: number;
  end: number;
}

export interface Sample {
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
  /** Speech to speech: the agent's instructions for this sample's session, and the path of a reference voice (vLLM-Omni's `ref_audio`). */
  instructions?: string;
  referenceAudio?: string;
  segments?: SpeechSpan[];
  audio: MonoAudio;
  /** The audio file's bytes as the dataset holds them, when the loader was asked to keep them. */
  file?: Uint8Array;
}

/** An input problem: which file (and JSONL line or table row), and why the sample was skipped. */
export interface DatasetProblem {
  file: string;
  /** 1-based line of a JSONL manifest. */
  line?: number;
  /** 0-based row of a Parquet or Arrow table. */
  row?: number;
  reason: string;
}

export type DatasetKind = 'folder' | 'jsonl' | 'parquet' | 'arrow';

export interface Dataset {
  root: string;
  kind: DatasetKind;
  samples: Sample[];
  problems: DatasetProblem[];
  /** Samples the selection options left out (split, language, duration bounds); not problems. */
  filteredOut: number;
  /** sha256 over every sample's id, audio bytes and reference text, in dataset order. */
  fingerprint: string;
}

export interface DatasetSummary {
  root: string;
  kind: DatasetKind;
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
}

/** What a summary needs of a sample, so it can be built without holding audio. */
export interface SampleFacts {
  split: string;
  language?: string;
  durationS: number;
  sampleRate: number;
  hasReference: boolean;
  hasWordTimings: boolean;
}

export function sampleFacts(sample: Sample): SampleFacts {
  return {
    split: sample.split,
    ...(sample.language !== undefined ? { language: sample.language } : {}),
    durationS: sample.audio.samples.length / sample.audio.sampleRate,
    sampleRate: sample.audio.sampleRate,
    hasReference: sample.text !== null,
    hasWordTimings: sample.words !== undefined,
  };
}

export function summarizeDataset(dataset: Dataset): DatasetSummary {
  return summarizeFacts(dataset, dataset.samples.map(sampleFacts));
}

export function summarizeFacts(dataset: Omit<Dataset, 'samples'>, facts: SampleFacts[]): DatasetSummary {
  const durations = facts.map((f) => f.durationS);
  return {
    root: dataset.root,
    kind: dataset.kind,
    fingerprint: dataset.fingerprint,
    count: facts.length,
    skipped: dataset.problems.length,
    filteredOut: dataset.filteredOut,
    totalAudioS: durations.reduce((sum, d) => sum + d, 0),
    shortestS: facts.length > 0 ? durations.reduce((a, b) => Math.min(a, b)) : 0,
    longestS: facts.length > 0 ? durations.reduce((a, b) => Math.max(a, b)) : 0,
    sampleRatesHz: [...new Set(facts.map((f) => f.sampleRate))].sort((a, b) => a - b),
    splits: tally(facts.map((f) => f.split)),
    languages: tally(facts.flatMap((f) => (f.language !== undefined ? [f.language] : []))),
    withReference: facts.filter((f) => f.hasReference).length,
    withWordTimings: facts.filter((f) => f.hasWordTimings).length,
  };
}

function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of [...values].sort()) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
