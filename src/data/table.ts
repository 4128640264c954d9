import { readFile } from 'node:fs/promises';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import {
  COLUMN_CANDIDATES,
  COLUMN_FLAGS,
  FIELD_CANDIDATES,
  cellText,
  pickColumn,
  pickField,
  type ColumnRole,
  type DatasetColumns,
  type Need,
  type SampleField,
} from './columns.js';
import type { DatasetProblem } from './dataset.js';
import { DatasetError } from './errors.js';
import type { Entry } from './source.js';
import { TURN_FIELDS, turnsOfRow } from './turns.js';

/** What the Hugging Face tables (Parquet shards, Arrow files) share: column roles, splits, the audio struct. */

export interface TableColumns {
  audio: string;
  text?: string;
  id?: string;
  language?: string;
  /** A row's own split, over the shard's. */
  split?: string;
  instructions?: string;
  /** A reference voice: an Audio struct, like the audio column. */
  referenceAudio?: string;
  /** The speaker-turn columns the table has (`turns`, or `speakers`, `timestamps_start`, `timestamps_end`). */
  turns?: string[];
}

/** The columns a listing reads: everything but the audio and the reference voice, which are read only for chosen samples. */
export function listedColumns(columns: TableColumns): string[] {
  return [columns.id, columns.text, columns.language, columns.split, columns.instructions, ...(columns.turns ?? [])].filter(
    (c): c is string => c !== undefined,
  );
}

/**
 * Which column plays which role in a table with columns `names`. The audio column is
 * the mapped one, else the feature the `huggingface` metadata types as Audio, else a
 * common name. A mapped column that is missing is an error naming the columns there are.
 * Read for prompts, the audio column may be missing (it is never read) and the text
 * column may not. The split, instructions and reference voice columns are found by name.
 */
export function resolveTableColumns(
  names: string[],
  hfMetadata: string | undefined,
  mapping: DatasetColumns,
  file: string,
  need: Need = 'audio',
): TableColumns {
  const has = (name: string): boolean => names.includes(name);
  const require = (role: ColumnRole, name: string | undefined): string | undefined => {
    if (name !== undefined && !has(name)) {
      throw new DatasetError(`${file}: no ${role} column "${name}" (columns: ${names.join(', ')}); name the right one with ${COLUMN_FLAGS[role]}`);
    }
    return name;
  };
  const audioName = mapping.audio ?? hfAudioFeature(hfMetadata) ?? COLUMN_CANDIDATES.audio.find(has) ?? 'audio';
  const columns: TableColumns = { audio: need === 'audio' ? require('audio', audioName)! : audioName };
  for (const role of ['text', 'id', 'language'] as const) {
    const name = require(role, pickColumn(role, mapping, has));
    if (name !== undefined) columns[role] = name;
  }
  for (const field of (need === 'audio' ? ['split', 'instructions', 'referenceAudio'] : ['split']) satisfies SampleField[]) {
    const name = pickField(field, has);
    if (name !== undefined) columns[field] = name;
  }
  const turns = TURN_FIELDS.filter(has);
  if (need === 'audio' && turns.length > 0) columns.turns = turns;
  if (need === 'text' && columns.text === undefined) {
    throw new DatasetError(`${file}: no text column (columns: ${names.join(', ')}); name the one holding the prompts with ${COLUMN_FLAGS.text}`);
  }
  return columns;
}

/** The column the `huggingface` schema metadata declares as `{"_type": "Audio"}`, other than a reference voice's. */
function hfAudioFeature(metadata: string | undefined): string | undefined {
  if (metadata === undefined) return undefined;
  const reference: readonly string[] = FIELD_CANDIDATES.referenceAudio;
  try {
    const features = (JSON.parse(metadata) as { info?: { features?: Record<string, { _type?: string }> } }).info?.features ?? {};
    return Object.entries(features).find(([name, feature]) => feature?._type === 'Audio' && !reference.includes(name))?.[0];
  } catch {
    return undefined;
  }
}

/**
 * The split of a shard: the name before `-00000-of-00003` as Hugging Face names
 * shards (`data/test-00000-of-00001.parquet`), else the folder holding it below the
 * dataset root (`en/test/0000.parquet`), else `default`.
 */
export function splitOfShard(file: string, root: string): string {
  const named = /^(.+?)-\d{5}-of-\d{5}/.exec(basename(file));
  if (named) return named[1]!;
  const folder = relative(root, dirname(file));
  return folder === '' || folder.startsWith('..') ? 'default' : folder.split(sep).pop()!;
}

/** Numbers rows within each split across shards, for ids of tables that have no id column. */
export class SplitCounter {
  private readonly next = new Map<string, number>();
  take(split: string): number {
    const n = this.next.get(split) ?? 0;
    this.next.set(split, n + 1);
    return n;
  }
}

/**
 * A table row's entry, of the row's split (its split column, else the shard's); without
 * an id column the id is `<split>-<row in split>`. The reference voice is read with the audio.
 * A row whose speaker turns are malformed is passed to `problem` and has no entry.
 */
export function tableEntry(
  row: Record<string, unknown>,
  columns: TableColumns,
  place: { file: string; row: number; split: string; counter: SplitCounter; order: number },
  problem: (p: DatasetProblem) => void,
): Entry | undefined {
  const cell = (name: string | undefined): string | undefined => (name === undefined ? undefined : cellText(row[name]));
  const language = cell(columns.language);
  const instructions = cell(columns.instructions);
  const split = cell(columns.split) || place.split;
  const indexInSplit = place.counter.take(split);
  let turns;
  try {
    turns = columns.turns && turnsOfRow((name) => (columns.turns!.includes(name) ? row[name] : undefined));
  } catch (err) {
    problem({ file: place.file, row: place.row, reason: (err as Error).message });
    return undefined;
  }
  return {
    id: cell(columns.id) ?? `${split}-${indexInSplit}`,
    split,
    text: cell(columns.text)?.trim() ?? null,
    ...(language !== undefined ? { language } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(turns ? { turns } : {}),
    at: { file: place.file, row: place.row },
    path: `${place.file} row ${place.row}`,
    order: place.order,
  };
}

/**
 * The bytes of a Hugging Face Audio cell: `{bytes, path}` with the encoded file in
 * `bytes`; when `bytes` is null, `path` names a file, read relative to the shard.
 */
export async function audioCellBytes(cell: unknown, shard: string): Promise<Uint8Array> {
  const { bytes, path } = (typeof cell === 'string' ? { path: cell } : (cell ?? {})) as { bytes?: unknown; path?: unknown };
  if (bytes instanceof Uint8Array && bytes.length > 0) return bytes;
  if (typeof path === 'string' && path !== '') {
    const file = resolve(dirname(shard), path);
    try {
      return await readFile(file);
    } catch {
      throw new Error(`the audio cell holds no bytes, and its path ${path} is not a file next to the shard`);
    }
  }
  throw new Error('the audio cell is empty (no bytes, no path)');
}

/** The bytes of a row's reference voice (read as the audio is); none for an empty cell. Errors name the column. */
export async function referenceCellBytes(row: Record<string, unknown> | undefined, columns: TableColumns, shard: string): Promise<Uint8Array | undefined> {
  if (columns.referenceAudio === undefined) return undefined;
  const cell = row?.[columns.referenceAudio] as { bytes?: unknown; path?: unknown } | string | null | undefined;
  if (cell === null || cell === undefined || cell === '' || (typeof cell === 'object' && cell.bytes == null && (cell.path == null || cell.path === '')))
    return undefined;
  try {
    return await audioCellBytes(cell, shard);
  } catch (err) {
    throw new Error(`${columns.referenceAudio}: ${(err as Error).message}`);
  }
}
