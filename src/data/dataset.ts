import type { MonoAudio } from '../audio/decode.js';

/** A word of the reference transcript and where it is spoken, in seconds from the audio start. */
export interface WordTiming {
  word: string;
  start: number;
  end: number;
}

export interface Sample {
  /** Stable id: the file name without extension. */
  id: string;
  split: string;
  /** The audio file, as given. */
  path: string;
  /** Reference transcript, or null when the dataset has none for this sample. */
  text: string | null;
  words?: WordTiming[];
  audio: MonoAudio;
}

/** An input problem: which file, and why it was skipped or degraded. */
export interface DatasetProblem {
  file: string;
  reason: string;
}

export interface Dataset {
  root: string;
  samples: Sample[];
  problems: DatasetProblem[];
  /** sha256 over every sample's id, audio bytes and reference text. */
  fingerprint: string;
}

export interface DatasetSummary {
  root: string;
  fingerprint: string;
  count: number;
  skipped: number;
  totalAudioS: number;
  sampleRatesHz: number[];
  withReference: number;
  withWordTimings: number;
}

export function summarizeDataset(dataset: Dataset): DatasetSummary {
  const rates = new Set(dataset.samples.map((s) => s.audio.sampleRate));
  return {
    root: dataset.root,
    fingerprint: dataset.fingerprint,
    count: dataset.samples.length,
    skipped: dataset.problems.length,
    totalAudioS: dataset.samples.reduce((sum, s) => sum + s.audio.samples.length / s.audio.sampleRate, 0),
    sampleRatesHz: [...rates].sort((a, b) => a - b),
    withReference: dataset.samples.filter((s) => s.text !== null).length,
    withWordTimings: dataset.samples.filter((s) => s.words !== undefined).length,
  };
}
