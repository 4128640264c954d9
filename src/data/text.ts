import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Dataset, DatasetProblem, TextSample } from './dataset.js';
import { DatasetError, describePlace } from './errors.js';
import { checkOptions, inDatasetOrder, listCandidates, nothingUsable, openDataset, problemRecorder, type DatasetOptions } from './load.js';
import { seededOrder } from './select.js';
import type { DatasetSource, Entry } from './source.js';

/**
 * Loads prompts for speech generation: a text file (one prompt per line), a JSONL
 * manifest (`text`, optional `id`, `voice`, `language`, `split`), Parquet or Arrow
 * with a text column, or any transcription dataset, whose references become the
 * prompts (so one dataset drives both directions). No audio is read. A row without
 * text is a problem, reported with its place like any other.
 */
export async function loadTextDataset(path: string, options: DatasetOptions = {}): Promise<Dataset<TextSample>> {
  checkOptions(options);
  if (options.minDurationS !== undefined || options.maxDurationS !== undefined) {
    throw new DatasetError(`${path}: duration bounds select recordings, and prompts have none; leave out --min-sample-duration and --max-sample-duration`);
  }
  const source = extname(path).toLowerCase() === '.txt' ? await textLines(path) : await openDataset(path, options, 'text');
  const problems: DatasetProblem[] = [];
  const report = problemRecorder(options, problems);
  const withText: Pick<DatasetSource, 'root' | 'entries'> = {
    root: source.root,
    async *entries(problem) {
      for await (const entry of source.entries(problem)) {
        if (entry.text) yield entry;
        else problem({ ...entry.at, reason: 'no text to speak: give the row a non-empty text, or name the column holding it with --text-column' });
      }
    },
  };
  const listed = await listCandidates(withText, options, report);
  const ordered = options.seed === undefined ? listed.candidates : seededOrder(listed.candidates, options.seed);
  const kept = ordered.slice(0, options.maxSamples ?? Infinity);
  const hash = createHash('sha256');
  for (const entry of kept) hash.update(entry.id).update('\0').update(entry.text!).update('\0');
  const dataset = {
    root: source.root,
    kind: source.kind,
    ...('hub' in source && source.hub ? { hub: source.hub } : {}),
    problems: inDatasetOrder(problems, listed.files),
    filteredOut: listed.filteredOut + ordered.length - kept.length,
    fingerprint: `sha256:${hash.digest('hex')}`,
  };
  if (kept.length === 0) throw new DatasetError(nothingUsable(dataset, 'text'));
  return { ...dataset, samples: kept.map(prompt) };
}

function prompt(entry: Entry): TextSample {
  return {
    kind: 'text',
    id: entry.id,
    split: entry.split,
    path: describePlace(entry.at),
    text: entry.text!,
    ...(entry.voice !== undefined ? { voice: entry.voice } : {}),
    ...(entry.language !== undefined ? { language: entry.language } : {}),
  };
}

/** A text file's encoding by its byte-order mark: UTF-16 LE with one, else UTF-8 (a UTF-8 mark is trimmed with the line's whitespace). */
async function textEncodingOf(path: string, file: string): Promise<'utf8' | 'utf16le'> {
  let head: Buffer;
  try {
    const handle = await open(path, 'r');
    head = Buffer.alloc(2);
    await handle.read(head, 0, 2, 0).finally(() => handle.close());
  } catch (err) {
    throw new DatasetError(`${file}: cannot read the text file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (head[0] === 0xfe && head[1] === 0xff) throw new DatasetError(`${file}: the text file is UTF-16 big-endian; save it as UTF-8`);
  return head[0] === 0xff && head[1] === 0xfe ? 'utf16le' : 'utf8';
}

/** A text file: each non-blank line a prompt, its id `line-<n>`. */
async function textLines(file: string): Promise<Pick<DatasetSource, 'root' | 'entries'> & { kind: 'text' }> {
  const path = resolve(file);
  const stream = createReadStream(path, { encoding: await textEncodingOf(path, file) });
  try {
    await new Promise<void>((ok, fail) => stream.once('ready', ok).once('error', fail));
  } catch (err) {
    throw new DatasetError(`${file}: cannot read the text file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return {
    kind: 'text',
    root: path,
    async *entries() {
      let line = 0;
      let order = 0;
      for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
        line++;
        if (text.trim() === '') continue;
        yield { id: `line-${line}`, split: 'default', text: text.trim(), at: { file: path, line }, path, order: order++ };
      }
    },
  };
}
