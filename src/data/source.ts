import type { DatasetKind, DatasetProblem, HubOrigin, SpeakerTurn, SpeechSpan, WordTiming } from './dataset.js';

/** A sample as its dataset lists it, before its audio is read. */
export interface Entry {
  id: string;
  split: string;
  text: string | null;
  language?: string;
  /** Speech to speech: the agent's instructions for this sample's session. */
  instructions?: string;
  /** A JSONL row's reference voice: the audio file's path (a table's is a column, read with the audio). */
  referenceAudio?: string;
  /** The voice a prompt asks for (JSONL `voice`). */
  voice?: string;
  words?: WordTiming[];
  segments?: SpeechSpan[];
  /** Reference speaker turns, in start order. */
  turns?: SpeakerTurn[];
  /** Where problems with this sample are reported: a file, and a JSONL line or table row. */
  at: Omit<DatasetProblem, 'reason'>;
  /** Sample.path: the audio file, or the shard and row holding the audio. */
  path: string;
  /** Position in storage order, counted across the whole dataset. */
  order: number;
}

/** An entry's audio bytes, and its reference voice's bytes when it has one; or why they cannot be read. */
export type AudioRead = { entry: Entry; bytes: Uint8Array; reference?: Uint8Array } | { entry: Entry; error: string };

/**
 * One kind of dataset on disk. Listing is cheap (no audio bytes), so selection can
 * happen before any audio is read; audio is then read only for the chosen entries.
 */
export interface DatasetSource {
  kind: DatasetKind;
  root: string;
  /** Where on the Hugging Face Hub the files are. */
  hub?: HubOrigin;
  /** Every sample's metadata in storage order; a malformed one is passed to `problem` and left out. */
  entries(problem: (p: DatasetProblem) => void): AsyncIterable<Entry>;
  /** The audio (and reference voice) bytes of `entries` (given in storage order), holding at most one file, row group or batch at a time. */
  audio(entries: Entry[]): AsyncIterable<AudioRead>;
}

/** Consecutive runs of `items` with the same key (items arrive grouped, in storage order). */
export function groupRuns<T, K>(items: T[], key: (item: T) => K): Array<[K, T[]]> {
  const groups: Array<[K, T[]]> = [];
  for (const item of items) {
    const k = key(item);
    const last = groups[groups.length - 1];
    if (last && last[0] === k) last[1].push(item);
    else groups.push([k, [item]]);
  }
  return groups;
}
