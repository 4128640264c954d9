/** Builders of dataset fixtures at test time: tones as WAV bytes, and Hugging Face-shaped Parquet and Arrow shards. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { Binary, Field, RecordBatch, RecordBatchStreamWriter, Schema, Struct, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { parquetWriteFile } from 'hyparquet-writer';

export const AUDIO_FIXTURES = fileURLToPath(new URL('../../test/fixtures/audio', import.meta.url));

export const tone = (hz: number, rate: number, seconds: number, amplitude = 0.3): Float32Array =>
  Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate));

/** A 16-bit mono WAV of a tone. */
export function toneWav(seconds: number, { rate = 16_000, hz = 440, amplitude = 0.3 } = {}): Uint8Array {
  return encodeWaveFromFloat32Channels([tone(hz, rate, seconds, amplitude)], rate, 16);
}

/** A Hugging Face Audio cell. */
export interface AudioCell {
  bytes: Uint8Array | null;
  path: string | null;
}

/** Table columns: strings, or the Audio struct. */
export type Columns = Record<string, Array<string | null> | AudioCell[]>;

const isAudio = (values: unknown[]): values is AudioCell[] => typeof values[0] === 'object' && values[0] !== null;

/** The `huggingface` schema metadata `datasets` writes: every column's feature, the audio one typed Audio. */
function hfMetadata(columns: Columns): string {
  const features = Object.fromEntries(
    Object.entries(columns).map(([name, values]) => [name, isAudio(values) ? { sampling_rate: 16000, _type: 'Audio' } : { dtype: 'string', _type: 'Value' }]),
  );
  return JSON.stringify({ info: { features } });
}

/** A Parquet shard as `datasets` writes it: the Audio struct `{bytes, path}`, strings, row groups, metadata. */
export function writeParquetShard(file: string, columns: Columns, { rowGroupSize = 2, gzip = false } = {}): void {
  const names = Object.keys(columns);
  parquetWriteFile({
    filename: file,
    columnData: names.map((name) => ({ name, data: columns[name]! })),
    schema: [
      { name: 'root', num_children: names.length },
      ...names.flatMap((name) =>
        isAudio(columns[name]!)
          ? [
              { name, num_children: 2, repetition_type: 'OPTIONAL' as const },
              { name: 'bytes', type: 'BYTE_ARRAY' as const, repetition_type: 'OPTIONAL' as const },
              { name: 'path', type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const },
            ]
          : [{ name, type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const }],
      ),
    ],
    rowGroupSize,
    kvMetadata: [{ key: 'huggingface', value: hfMetadata(columns) }],
    ...(gzip ? { codec: 'GZIP' as const, compressors: { GZIP: (bytes: Uint8Array) => new Uint8Array(gzipSync(bytes)) } } : {}),
  });
}

/** An Arrow IPC stream as `save_to_disk` writes it (`data-00000-of-00001.arrow`), in batches of `batchSize` rows. */
export function writeArrowShard(file: string, columns: Columns, { batchSize = 2 } = {}): void {
  const audioType = new Struct([new Field('bytes', new Binary(), true), new Field('path', new Utf8(), true)]);
  const table = new Table(
    Object.fromEntries(
      Object.entries(columns).map(([name, values]) => [name, isAudio(values) ? vectorFromArray(values, audioType) : vectorFromArray(values, new Utf8())]),
    ),
  );
  const schema = new Schema(table.schema.fields, new Map([['huggingface', hfMetadata(columns)]]));
  const batches: RecordBatch[] = [];
  for (let start = 0; start < table.numRows; start += batchSize) {
    for (const batch of table.slice(start, start + batchSize).batches) batches.push(new RecordBatch(schema, batch.data));
  }
  writeFileSync(file, RecordBatchStreamWriter.writeAll(batches).toUint8Array(true));
}
