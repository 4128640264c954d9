import { readFile } from 'node:fs/promises';
import type { DatasetProblem, SpeakerTurn } from './dataset.js';
import { DatasetError } from './errors.js';

/**
 * Reference speaker turns in RTTM, the NIST Rich Transcription format that md-eval,
 * dscore and pyannote.metrics read: one `SPEAKER <file> <chan> <onset s> <dur s> <NA>
 * <NA> <speaker> <NA> <NA>` line per turn. As those scorers do, only the file id, onset,
 * duration and speaker are read (dscore `scorelib/rttm.py`); lines of the format's other
 * types (`SPKR-INFO`, `LEXEME`, …), blank lines and `;;` or `#` comments are passed over.
 */
export interface Rttm {
  /** Turns per file id, each in start order. */
  turns: Map<string, SpeakerTurn[]>;
  /** The line of each file id's first turn, to report a file id no sample claims. */
  firstLine: Map<string, number>;
}

/** Parses RTTM text; a malformed SPEAKER line is passed to `problem` with `file` and its line, and the rest are read. */
export function parseRttm(text: string, file: string, problem: (p: DatasetProblem) => void): Rttm {
  const turns = new Map<string, SpeakerTurn[]>();
  const firstLine = new Map<string, number>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const fields = raw.trim().split(/\s+/);
    if (fields[0] !== 'SPEAKER') continue;
    try {
      const [fileId, turn] = speakerLine(fields);
      if (!turns.has(fileId)) {
        turns.set(fileId, []);
        firstLine.set(fileId, i + 1);
      }
      turns.get(fileId)!.push(turn);
    } catch (err) {
      problem({ file, line: i + 1, reason: (err as Error).message, noSampleSkipped: true });
    }
  }
  for (const list of turns.values()) list.sort(byStart);
  return { turns, firstLine };
}

function speakerLine(fields: string[]): [string, SpeakerTurn] {
  if (fields.length < 8) {
    throw new Error(`an RTTM SPEAKER line needs 8 fields or more (SPEAKER file channel onset duration <NA> <NA> speaker), this one has ${fields.length}`);
  }
  const seconds = (value: string, what: string): number => {
    const s = Number(value);
    if (value === '' || !Number.isFinite(s) || s < 0) throw new Error(`the ${what} "${value}" is not a number of seconds >= 0`);
    return s;
  };
  const onset = seconds(fields[3]!, 'onset');
  const duration = seconds(fields[4]!, 'duration');
  return [fields[1]!, { speaker: fields[7]!, startMs: toMs(onset), endMs: toMs(onset + duration) }];
}

export const byStart = (a: SpeakerTurn, b: SpeakerTurn): number => a.startMs - b.startMs || a.endMs - b.endMs;

/** Seconds to ms, kept to the microsecond so that 1.001 s reads as 1001 ms, not 1000.9999999999999. */
export const toMs = (seconds: number): number => Math.round(seconds * 1e6) / 1e3;

/** Reads and parses an RTTM file; one that cannot be read at all is a DatasetError naming it. */
export async function readRttm(path: string, problem: (p: DatasetProblem) => void): Promise<Rttm> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new DatasetError(`${path}: cannot read the RTTM file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parseRttm(text, path, problem);
}

/** Every turn of `rttm`, whatever its file id: a recording's own RTTM holds that recording, however its writer named it. */
export function allTurns(rttm: Rttm): SpeakerTurn[] {
  return [...rttm.turns.values()].flat().sort(byStart);
}

/**
 * Turns of one or more dataset-wide RTTM files, handed out by file id (the sample id);
 * a file id that no sample of the dataset claimed is reported once, at its first line.
 */
export class DatasetRttm {
  private readonly unclaimed = new Map<string, { file: string; line: number }>();
  private readonly turns = new Map<string, SpeakerTurn[]>();

  static async read(paths: readonly string[], problem: (p: DatasetProblem) => void): Promise<DatasetRttm> {
    const merged = new DatasetRttm();
    for (const path of paths) {
      const rttm = await readRttm(path, problem);
      for (const [id, turns] of rttm.turns) {
        merged.turns.set(id, [...(merged.turns.get(id) ?? []), ...turns].sort(byStart));
        if (!merged.unclaimed.has(id)) merged.unclaimed.set(id, { file: path, line: rttm.firstLine.get(id)! });
      }
    }
    return merged;
  }

  /** The turns of sample `id`, if the RTTM has any. */
  take(id: string): SpeakerTurn[] | undefined {
    this.unclaimed.delete(id);
    return this.turns.get(id);
  }

  /** Reports each file id no sample took. */
  reportUnclaimed(problem: (p: DatasetProblem) => void): void {
    for (const [id, at] of this.unclaimed) problem({ ...at, reason: `file id "${id}" matches no sample id; its turns are not used`, noSampleSkipped: true });
  }
}

/** RTTM lines for one recording's turns, as pyannote.core writes them (channel 1, times in seconds to the millisecond). */
export function formatRttm(fileId: string, turns: readonly SpeakerTurn[]): string {
  const s = (ms: number): string => (ms / 1000).toFixed(3);
  return turns.map((t) => `SPEAKER ${fileId} 1 ${s(t.startMs)} ${s(t.endMs - t.startMs)} <NA> <NA> ${t.speaker} <NA> <NA>\n`).join('');
}
