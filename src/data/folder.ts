import { readdir, readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { DatasetError } from './errors.js';
import { allTurns, DatasetRttm, readRttm } from './rttm.js';
import type { AudioRead, DatasetSource, Entry } from './source.js';
import { decodeTextBytes } from './text-bytes.js';
import { parseWordTimings } from './timings.js';

/**
 * Extensions a folder dataset takes as audio. The unsupported containers are listed
 * too, so that such a file is reported as unsupported instead of silently ignored.
 */
export const AUDIO_EXTENSIONS = new Set(['.wav', '.flac', '.mp3', '.ogg', '.oga', '.opus', '.m4a', '.aac', '.aif', '.aiff', '.webm', '.wma', '.amr', '.caf']);

/**
 * A folder of audio files, each with an optional same-named `.txt` reference
 * transcript, `.words.json` word timings (`[{word, start, end}]`, seconds) and `.rttm`
 * speaker turns. Any other `.rttm` file in the folder holds turns for the whole
 * dataset, matched to samples by its file id. The sample id is the file name without
 * its extension.
 */
export function folderSource(dir: string): DatasetSource {
  const root = resolve(dir);
  return {
    kind: 'folder',
    root,
    async *entries(problem) {
      let names: string[];
      try {
        names = (await readdir(root)).sort();
      } catch (err) {
        throw new DatasetError(`${dir}: cannot read the dataset folder (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
      let order = 0;
      const stem = (name: string): string => name.slice(0, name.length - extname(name).length);
      const audioNames = names.filter((n) => AUDIO_EXTENSIONS.has(extname(n).toLowerCase()));
      const ids = new Set(audioNames.map(stem));
      const rttms = names.filter((n) => extname(n).toLowerCase() === '.rttm');
      const datasetRttm = await DatasetRttm.read(
        rttms.filter((n) => !ids.has(stem(n))).map((n) => join(root, n)),
        problem,
      );
      for (const name of audioNames) {
        const path = join(root, name);
        const id = stem(name);
        const shared = datasetRttm.take(id);
        try {
          const text = await readOptional(join(root, `${id}.txt`), `the transcript ${id}.txt`);
          const wordsJson = await readOptional(join(root, `${id}.words.json`), `${id}.words.json`);
          const words = wordsJson === null ? undefined : parseWordTimings(parseJson(wordsJson, `${id}.words.json`), `${id}.words.json`);
          // The recording's own RTTM, over the dataset's.
          const ownFile = rttms.find((n) => stem(n) === id);
          const own = ownFile === undefined ? undefined : allTurns(await readRttm(join(root, ownFile), problem));
          const turns = own ?? shared;
          yield {
            id,
            split: 'default',
            text: text?.trim() ?? null,
            ...(words ? { words } : {}),
            ...(turns ? { turns } : {}),
            at: { file: path },
            path,
            order: order++,
          };
        } catch (err) {
          problem({ file: path, reason: (err as Error).message });
        }
      }
      datasetRttm.reportUnclaimed(problem);
    },
    audio: readAudioFiles,
  };
}

/** Reads each entry's `path` as a whole file, and its reference voice's file if it names one, one entry at a time. */
export async function* readAudioFiles(entries: Entry[]): AsyncIterable<AudioRead> {
  for (const entry of entries) {
    try {
      const bytes = await readWhole(entry.path, entry.path === entry.at.file ? 'the audio file' : `the audio file ${entry.path}`);
      yield {
        entry,
        bytes,
        ...(entry.referenceAudio !== undefined ? { reference: await readWhole(entry.referenceAudio, `the reference audio file ${entry.referenceAudio}`) } : {}),
      };
    } catch (err) {
      yield { entry, error: (err as Error).message };
    }
  }
}

/** A file's bytes; a failure names the file as `what` (a manifest's problem names the manifest, so the file is named in the reason). */
async function readWhole(path: string, what: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${what} does not exist` : `cannot read ${what} (${code ?? String(err)})`);
  }
}

function parseJson(json: string, label: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    throw new Error(`${label} is not valid JSON`);
  }
}

/** A file's text (decoded by its byte-order mark), or null when there is none; text that is not valid throws naming `label`. */
async function readOptional(path: string, label: string): Promise<string | null> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return decodeTextBytes(bytes, label);
}
