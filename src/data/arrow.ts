import { createReadStream } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import type { DatasetColumns, Need } from './columns.js';
import { DatasetError } from './errors.js';
import { groupRuns, type DatasetSource } from './source.js';
import { SplitCounter, audioCellBytes, listedColumns, referenceCellBytes, resolveTableColumns, tableEntry, type TableColumns } from './table.js';

interface ArrowShard {
  file: string;
  split: string;
}

/**
 * A Hugging Face `save_to_disk` folder: a Dataset (`state.json` naming its
 * `data-*.arrow` shards) or a DatasetDict (`dataset_dict.json` and one Dataset folder
 * per split), or a single `.arrow` file. Shards are Arrow IPC streams, read one record
 * batch at a time, once to list the samples and again for the chosen samples' audio.
 */
export function arrowSource(path: string, columns: DatasetColumns, isFile: boolean, need: Need = 'audio'): DatasetSource {
  const root = resolve(path);
  const shards = async (): Promise<ArrowShard[]> => (isFile ? [{ file: root, split: 'default' }] : await findArrowShards(root));
  return {
    kind: 'arrow',
    root,
    async *entries(problem) {
      const counter = new SplitCounter();
      let order = 0;
      for (const { file, split } of await shards()) {
        try {
          for await (const { batch, firstRow, columns: cols } of readBatches(file, columns, need)) {
            for (let i = 0; i < batch.numRows; i++) {
              const row = Object.fromEntries(listedColumns(cols).map((c) => [c, batch.getChild(c)?.get(i)]));
              const entry = tableEntry(row, cols, { file, row: firstRow + i, split, counter, order: order++ }, problem);
              if (entry) yield entry;
            }
          }
        } catch (err) {
          if (err instanceof DatasetError) throw err;
          problem({ file, reason: `not a readable Arrow file (${(err as Error).message})` });
        }
      }
    },
    async *audio(entries) {
      for (const [file, inFile] of groupRuns(entries, (e) => e.at.file)) {
        let next = 0;
        try {
          for await (const { batch, firstRow, columns: cols } of readBatches(file, columns)) {
            const audio = batch.getChild(cols.audio);
            const voice = cols.referenceAudio === undefined ? null : batch.getChild(cols.referenceAudio);
            for (; next < inFile.length && inFile[next]!.at.row! < firstRow + batch.numRows; next++) {
              const entry = inFile[next]!;
              const i = entry.at.row! - firstRow;
              try {
                const reference = await referenceCellBytes(voice ? { [cols.referenceAudio!]: voice.get(i) as unknown } : undefined, cols, file);
                yield { entry, bytes: await audioCellBytes(audio?.get(i), file), ...(reference ? { reference } : {}) };
              } catch (err) {
                yield { entry, error: (err as Error).message };
              }
            }
            if (next === inFile.length) break;
          }
        } catch (err) {
          for (const entry of inFile.slice(next)) yield { entry, error: `not a readable Arrow file (${(err as Error).message})` };
        }
      }
    },
  };
}

/** The record batches of an Arrow IPC stream or file, streamed from disk, with each batch's first row. */
async function* readBatches(
  file: string,
  mapping: DatasetColumns,
  need: Need = 'audio',
): AsyncIterable<{ batch: RecordBatch; firstRow: number; columns: TableColumns }> {
  // Loaded on first use: the library takes about 0.2 s to load, which runs over other datasets need not wait.
  const { RecordBatchReader } = await import('apache-arrow');
  const reader = await RecordBatchReader.from(createReadStream(file));
  await reader.open();
  const columns = resolveTableColumns(
    reader.schema.fields.map((f) => f.name),
    reader.schema.metadata.get('huggingface'),
    mapping,
    file,
    need,
  );
  let firstRow = 0;
  for await (const batch of reader) {
    yield { batch, firstRow, columns };
    firstRow += batch.numRows;
  }
}

async function findArrowShards(root: string): Promise<ArrowShard[]> {
  const dict = await readJson(join(root, 'dataset_dict.json'));
  if (dict !== null) {
    const splits = (dict as { splits?: unknown }).splits;
    if (!Array.isArray(splits)) throw new DatasetError(`${join(root, 'dataset_dict.json')}: has no "splits" list`);
    return (await Promise.all(splits.map((split: string) => datasetShards(join(root, split), split)))).flat();
  }
  return datasetShards(root, undefined);
}

/** The shards of one saved Dataset, in `state.json`'s order, else every `data-*.arrow` by name. */
async function datasetShards(dir: string, split: string | undefined): Promise<ArrowShard[]> {
  const state = (await readJson(join(dir, 'state.json'))) as { _data_files?: Array<{ filename: string }>; _split?: string | null } | null;
  const names = state?._data_files?.map((f) => f.filename) ?? (await readdir(dir)).filter((n) => /^data-.*\.arrow$/.test(n)).sort();
  if (names.length === 0) throw new DatasetError(`${dir}: no Arrow shards (data-*.arrow) found`);
  const splitName = split ?? state?._split ?? 'default';
  return names.map((name) => ({ file: join(dir, basename(name)), split: splitName }));
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new DatasetError(`${file}: not valid JSON`);
  }
}
