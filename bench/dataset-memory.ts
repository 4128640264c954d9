/**
 * Measures the peak memory of reading a large dataset: generates 10 hours of audio
 * (1,200 clips of 30 s, 16 kHz 16-bit WAV, tones in noise) as Hugging Face Parquet
 * shards, as a `save_to_disk` folder (Arrow) and as a JSONL manifest with WAV files,
 * in a temporary folder, then reads
 * each with `inspectDataset` (the loader's own pipeline: listing, selection, decoding
 * and checks of every sample) in a fresh process, and reports its peak RSS (Linux).
 *
 *   npm run bench:dataset          # writes the table into BENCHMARKS.md
 *   node dist/bench/dataset-memory.js --inspect PATH   # one measurement, printed as JSON
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { Binary, Field, RecordBatchStreamWriter, Struct, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { parquetWriteFile } from 'hyparquet-writer';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { inspectDataset } from '../src/data/inspect.js';

const RATE = 16_000;
const CLIP_S = 30;
const CLIPS = 1200;
const CLIPS_PER_SHARD = 100;
/** About 19 MB of audio per row group and record batch, near what Hugging Face writes for audio. */
const ROWS_PER_GROUP = 20;

interface Measurement {
  count: number;
  totalAudioS: number;
  seconds: number;
  peakRssMiB: number;
}

if (process.argv[2] === '--inspect') {
  const started = performance.now();
  const { summary, problems } = await inspectDataset(process.argv[3]!);
  if (problems.length > 0) throw new Error(`unexpected problems, first: ${JSON.stringify(problems[0])}`);
  const measurement: Measurement = {
    count: summary.count,
    totalAudioS: summary.totalAudioS,
    seconds: (performance.now() - started) / 1000,
    peakRssMiB: await peakRssMiB(),
  };
  process.stdout.write(JSON.stringify(measurement));
} else {
  await main();
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'voxbench-dataset-bench-'));
  try {
    process.stderr.write(`generating ${(CLIPS * CLIP_S) / 3600} h of audio in ${root} …\n`);
    const parquet = join(root, 'hf');
    const arrow = join(root, 'saved');
    const manifest = join(root, 'jsonl', 'all.jsonl');
    await generate(parquet, arrow, manifest);
    const rows: string[] = [];
    const datasets = [
      ['bundled samples (reference)', BUNDLED_SAMPLES_DIR],
      ['Parquet shards', parquet],
      ['save_to_disk (Arrow)', arrow],
      ['JSONL + WAV files', manifest],
    ] as const;
    for (const [name, path] of datasets) {
      process.stderr.write(`inspecting ${name} …\n`);
      const m = await measure(path);
      const audio = m.totalAudioS < 3600 ? `${m.totalAudioS.toFixed(0)} s` : `${(m.totalAudioS / 3600).toFixed(2)} h`;
      rows.push(`| ${name} | ${m.count} | ${audio} | ${m.seconds.toFixed(1)} s | ${m.peakRssMiB.toFixed(0)} MiB |`);
    }
    const section = [
      '<!-- dataset-memory:start -->',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.version}; ${CLIPS} clips of ${CLIP_S} s at 16 kHz (16-bit WAV bytes, ${CLIPS_PER_SHARD} per Parquet shard, ${ROWS_PER_GROUP} per row group or record batch).`,
      '',
      '| dataset | samples | audio | wall time | peak RSS |',
      '|---|---:|---:|---:|---:|',
      ...rows,
      '<!-- dataset-memory:end -->',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    const file = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
    const current = await readFile(file, 'utf8');
    await writeFile(file, current.replace(/<!-- dataset-memory:start -->[\s\S]*<!-- dataset-memory:end -->/, section));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The process's peak resident set (VmHWM, Linux). Not `resourceUsage().maxRSS`: that
 * survives exec, so a child would report its parent's peak when that is higher.
 */
async function peakRssMiB(): Promise<number> {
  const status = await readFile('/proc/self/status', 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

/** A fresh process, so its peak RSS is the reading's alone. */
async function measure(path: string): Promise<Measurement> {
  const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), '--inspect', path], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as Measurement;
}

/**
 * The same clips three ways: Parquet shards (data/train-0000N-of-000NN.parquet), one
 * saved Dataset (state.json and a data-00000-of-00001.arrow stream), and WAV files
 * listed in a manifest.
 */
async function generate(parquet: string, arrow: string, manifest: string): Promise<void> {
  await mkdir(join(parquet, 'data'), { recursive: true });
  await mkdir(arrow, { recursive: true });
  await mkdir(join(manifest, '..', 'clips'), { recursive: true });
  const shards = CLIPS / CLIPS_PER_SHARD;
  const lines: string[] = [];
  const arrowFile = createWriteStream(join(arrow, 'data-00000-of-00001.arrow'));
  const arrowWriter = new RecordBatchStreamWriter();
  arrowWriter.pipe(arrowFile);
  const audioType = new Struct([new Field('bytes', new Binary(), true), new Field('path', new Utf8(), true)]);
  for (let s = 0; s < shards; s++) {
    const ids: string[] = [];
    const audio: Array<{ bytes: Uint8Array; path: string }> = [];
    for (let c = 0; c < CLIPS_PER_SHARD; c++) {
      const id = `clip-${String(s * CLIPS_PER_SHARD + c).padStart(5, '0')}`;
      const wav = clip(s * CLIPS_PER_SHARD + c);
      ids.push(id);
      audio.push({ bytes: wav, path: `${id}.wav` });
      await writeFile(join(manifest, '..', 'clips', `${id}.wav`), wav);
      lines.push(JSON.stringify({ id, audio: `clips/${id}.wav`, text: `clip ${id}` }));
    }
    const texts = ids.map((id) => `clip ${id}`);
    parquetWriteFile({
      filename: join(parquet, 'data', `train-${String(s).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.parquet`),
      columnData: [
        { name: 'id', data: ids },
        { name: 'audio', data: audio },
        { name: 'text', data: texts },
      ],
      schema: [
        { name: 'root', num_children: 3 },
        { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        { name: 'audio', num_children: 2, repetition_type: 'OPTIONAL' },
        { name: 'bytes', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
        { name: 'path', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        { name: 'text', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      ],
      rowGroupSize: ROWS_PER_GROUP,
      kvMetadata: [{ key: 'huggingface', value: JSON.stringify({ info: { features: { audio: { _type: 'Audio', sampling_rate: RATE } } } }) }],
    });
    for (let start = 0; start < CLIPS_PER_SHARD; start += ROWS_PER_GROUP) {
      const rows = (values: unknown[]): unknown[] => values.slice(start, start + ROWS_PER_GROUP);
      const batch = new Table({
        id: vectorFromArray(rows(ids), new Utf8()),
        audio: vectorFromArray(rows(audio), audioType),
        text: vectorFromArray(rows(texts), new Utf8()),
      });
      for (const b of batch.batches) arrowWriter.write(b);
    }
  }
  arrowWriter.finish();
  await finished(arrowFile);
  await writeFile(join(arrow, 'state.json'), JSON.stringify({ _data_files: [{ filename: 'data-00000-of-00001.arrow' }], _split: 'train' }));
  await writeFile(manifest, `${lines.join('\n')}\n`);
}

/** A tone that moves with the clip's index, in noise, so no two clips are alike and nothing compresses away. */
function clip(index: number): Uint8Array {
  const samples = new Float32Array(RATE * CLIP_S);
  const hz = 200 + (index % 50) * 20;
  let seed = index + 1;
  for (let i = 0; i < samples.length; i++) {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    samples[i] = 0.3 * Math.sin((2 * Math.PI * hz * i) / RATE) + 0.05 * (seed / 2 ** 31 - 1);
  }
  return encodeWaveFromFloat32Channels([samples], RATE, 16);
}
