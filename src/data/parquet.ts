import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import type { DatasetColumns, Need } from './columns.js';
import { DatasetError } from './errors.js';
import { groupRuns, type AudioRead, type DatasetSource, type Entry } from './source.js';
import { SplitCounter, audioCellBytes, listedColumns, referenceCellBytes, resolveTableColumns, splitOfShard, tableEntry, type TableColumns } from './table.js';

/** One Parquet file of a dataset: its name in problems and sample paths, the split its rows belong to, and how to read its bytes. */
export interface ParquetFile {
  file: string;
  split: string;
  open(): Promise<AsyncBuffer>;
}

interface Shard {
  file: AsyncBuffer;
  metadata: FileMetaData;
  columns: TableColumns;
  /** First row of each row group, and the end of the last. */
  groupStarts: number[];
}

/**
 * Hugging Face Parquet shards on disk: one `.parquet` file, or every one under a folder
 * (`data/train-00000-of-00002.parquet` …).
 */
export function parquetSource(path: string, columns: DatasetColumns, isFile: boolean, need: Need = 'audio'): DatasetSource {
  const root = resolve(path);
  const files = async (): Promise<ParquetFile[]> =>
    (isFile ? [root] : await findParquetFiles(root)).map((file) => ({
      file,
      split: splitOfShard(file, isFile ? resolve(root, '..') : root),
      open: async () => (await parquet()).asyncBufferFromFile(file),
    }));
  return parquetFilesSource(root, files, columns, need);
}

/**
 * A dataset of Parquet files, wherever their bytes are (on disk, or read by range from
 * the Hub). Read one row group at a time: listing reads only the id, text, language,
 * split and instructions columns; audio (and a reference voice) is read only for the
 * row groups that hold chosen samples.
 */
export function parquetFilesSource(root: string, list: () => Promise<ParquetFile[]>, columns: DatasetColumns, need: Need = 'audio'): DatasetSource {
  return {
    kind: 'parquet',
    root,
    async *entries(problem) {
      const counter = new SplitCounter();
      let order = 0;
      for (const part of await list()) {
        const { file, split } = part;
        let shard: Shard;
        try {
          shard = await openShard(part, columns, need);
        } catch (err) {
          if (err instanceof DatasetError) throw err;
          problem({ file, reason: (err as Error).message });
          continue;
        }
        const wanted = listedColumns(shard.columns);
        for (let g = 0; g + 1 < shard.groupStarts.length; g++) {
          const [start, end] = [shard.groupStarts[g]!, shard.groupStarts[g + 1]!];
          let rows: Record<string, unknown>[];
          try {
            rows = wanted.length > 0 ? await readRows(shard, wanted, start, end) : Array.from({ length: end - start }, () => ({}));
          } catch (err) {
            problem({ file, row: start, reason: `rows ${start} to ${end - 1} (row group ${g}) cannot be read: ${readFault(err)}` });
            continue;
          }
          for (const [i, row] of rows.entries()) {
            const entry = tableEntry(row, shard.columns, { file, row: start + i, split, counter, order: order++ }, problem);
            if (entry) yield entry;
          }
        }
      }
    },
    async *audio(entries) {
      const parts = new Map((await list()).map((part) => [part.file, part]));
      for (const [file, rows] of groupRuns(entries, (e) => e.at.file)) {
        let shard: Shard;
        try {
          shard = await openShard(parts.get(file)!, columns);
        } catch (err) {
          if (err instanceof DatasetError) throw err;
          for (const entry of rows) yield { entry, error: (err as Error).message };
          continue;
        }
        yield* readAudioByRowGroup(shard, file, rows);
      }
    },
  };
}

async function* readAudioByRowGroup(shard: Shard, file: string, entries: Entry[]): AsyncIterable<AudioRead> {
  const groupOf = (row: number): number => shard.groupStarts.findIndex((start, g) => row >= start && row < shard.groupStarts[g + 1]!);
  for (const [group, inGroup] of groupRuns(entries, (e) => groupOf(e.at.row!))) {
    const [start, end] = [shard.groupStarts[group]!, shard.groupStarts[group + 1]!];
    let rows: Record<string, unknown>[];
    try {
      rows = await readRows(shard, [shard.columns.audio, ...(shard.columns.referenceAudio !== undefined ? [shard.columns.referenceAudio] : [])], start, end);
    } catch (err) {
      // A dataset that cannot be read at all (a download refused) stops the run; a damaged row group skips its samples.
      if (err instanceof DatasetError) throw err;
      for (const entry of inGroup) yield { entry, error: `cannot read row group ${group}: ${readFault(err)}` };
      continue;
    }
    for (const entry of inGroup) {
      const row = rows[entry.at.row! - start];
      try {
        const reference = await referenceCellBytes(row, shard.columns, file);
        yield { entry, bytes: await audioCellBytes(row?.[shard.columns.audio], file), ...(reference ? { reference } : {}) };
      } catch (err) {
        yield { entry, error: (err as Error).message };
      }
    }
  }
}

/** The Parquet reader and its codecs, loaded on first use (about 0.1 s), so runs over other datasets start without them. */
const parquet = async () => ({ ...(await import('hyparquet')), ...(await import('hyparquet-compressors')) });

/**
 * A shard's footer: its schema, columns and row groups. A file that is not Parquet, or
 * whose footer is damaged, throws one line saying which (the reader's own errors on
 * such bytes are JavaScript's, as "Cannot read properties of undefined").
 */
async function openShard(part: ParquetFile, mapping: DatasetColumns, need: Need = 'audio'): Promise<Shard> {
  const { parquetMetadataAsync, parquetSchema } = await parquet();
  const file = await part.open();
  if (!(await hasParquetMarkers(file))) throw new Error('not a Parquet file: it does not begin and end with the marker PAR1');
  let metadata: FileMetaData;
  let names: string[];
  const groupStarts = [0];
  try {
    metadata = await parquetMetadataAsync(file);
    names = parquetSchema(metadata).children.map((c) => c.element.name);
    for (const group of metadata.row_groups) {
      const rows = Number(group.num_rows);
      if (!(Number.isSafeInteger(rows) && rows >= 0)) throw new Error(`a row group of ${String(group.num_rows)} rows`);
      groupStarts.push(groupStarts[groupStarts.length - 1]! + rows);
    }
  } catch (err) {
    // A download refused or cut off is the dataset's fault, said as it is; anything else is the file's.
    if (err instanceof DatasetError) throw err;
    throw new Error(`a damaged Parquet file: its footer (the schema and row groups) cannot be read: ${readFault(err)}`);
  }
  const hf = metadata.key_value_metadata?.find((kv) => kv.key === 'huggingface')?.value;
  return { file, metadata, columns: resolveTableColumns(names, hf, mapping, part.file, need), groupStarts };
}

/** Whether the file begins and ends with Parquet's marker, as every Parquet file does. */
async function hasParquetMarkers(file: AsyncBuffer): Promise<boolean> {
  if (file.byteLength < 12) return false;
  const marker = async (start: number): Promise<string> => Buffer.from(await file.slice(start, start + 4)).toString('latin1');
  return (await marker(0)) === 'PAR1' && (await marker(file.byteLength - 4)) === 'PAR1';
}

/** What the reader said of bytes it could not read: its own message, or where JavaScript's errors stand for it (bytes that are not what the footer says), that. */
function readFault(err: unknown): string {
  return err instanceof TypeError || err instanceof RangeError ? 'the bytes are not what Parquet describes' : (err as Error).message;
}

/** Rows [start, end) of some columns; `utf8: false` keeps the audio bytes binary (the default would decode them as text). */
async function readRows(shard: Shard, columns: string[], start: number, end: number): Promise<Record<string, unknown>[]> {
  const { parquetReadObjects, compressors } = await parquet();
  return parquetReadObjects({ file: shard.file, metadata: shard.metadata, columns, rowStart: start, rowEnd: end, utf8: false, compressors });
}

async function findParquetFiles(root: string): Promise<string[]> {
  const names = (await readdir(root, { recursive: true })).filter((n) => n.endsWith('.parquet')).sort();
  if (names.length === 0) throw new DatasetError(`${root}: no .parquet files found`);
  return names.map((n) => join(root, n));
}
