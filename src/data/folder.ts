import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { decodeWav } from '../audio/decode.js';
import type { Dataset, DatasetProblem, Sample, WordTiming } from './dataset.js';

/**
 * Loads a folder of WAV files, each with an optional same-named `.txt` reference
 * transcript and `.words.json` word timings (`[{word, start, end}]`, seconds).
 * A file that cannot be used is reported in `problems` and skipped; the rest load.
 */
export async function loadFolderDataset(dir: string): Promise<Dataset> {
  const root = resolve(dir);
  let names: string[];
  try {
    names = (await readdir(root)).sort();
  } catch (err) {
    throw new DatasetError(`${dir}: cannot read the dataset folder (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const samples: Sample[] = [];
  const problems: DatasetProblem[] = [];
  const hash = createHash('sha256');
  for (const name of names.filter((n) => n.toLowerCase().endsWith('.wav'))) {
    const path = join(root, name);
    const id = basename(name, name.slice(name.lastIndexOf('.')));
    try {
      const bytes = await readFile(path);
      const audio = decodeWav(bytes);
      if (audio.samples.length === 0) throw new Error('the file holds no audio samples');
      const text = await readOptional(join(root, `${id}.txt`));
      const wordsJson = await readOptional(join(root, `${id}.words.json`));
      const words = wordsJson === null ? undefined : parseWordTimings(wordsJson, `${id}.words.json`);
      hash.update(id).update(bytes).update(text ?? '');
      samples.push({ id, split: 'default', path, text: text?.trim() ?? null, ...(words ? { words } : {}), audio });
    } catch (err) {
      problems.push({ file: path, reason: (err as Error).message });
    }
  }
  if (samples.length === 0) {
    const why = problems.length > 0 ? `; ${problems.length} unusable (first: ${problems[0]!.reason})` : '';
    throw new DatasetError(`${dir}: no usable .wav files found${why}`);
  }
  return { root, samples, problems, fingerprint: `sha256:${hash.digest('hex')}` };
}

/** A dataset that cannot be used at all; the message names the path and what to do. */
export class DatasetError extends Error {
  override name = 'DatasetError';
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function parseWordTimings(json: string, file: string): WordTiming[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error(`${file} is not valid JSON`);
  }
  const ok = (w: unknown): w is WordTiming =>
    typeof w === 'object' && w !== null &&
    typeof (w as WordTiming).word === 'string' &&
    typeof (w as WordTiming).start === 'number' &&
    typeof (w as WordTiming).end === 'number' &&
    (w as WordTiming).end >= (w as WordTiming).start;
  if (!Array.isArray(value) || !value.every(ok)) {
    throw new Error(`${file} must be a JSON array of {"word", "start", "end"} with end >= start (seconds)`);
  }
  return value;
}
