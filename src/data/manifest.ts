import { createReadStream } from 'node:fs';
import { dirname, extname, isAbsolute, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { COLUMN_FLAGS, pickColumn, pickField, type DatasetColumns, type Need } from './columns.js';
import { DatasetError } from './errors.js';
import { readAudioFiles } from './folder.js';
import type { DatasetSource, Entry } from './source.js';
import { allTurns, readRttm } from './rttm.js';
import { parseSegments, parseWordTimings } from './timings.js';
import { turnsOfRow } from './turns.js';

/**
 * A JSON Lines manifest: one object per line with `audio` (a path relative to the
 * manifest), `text`, and optionally `id`, `split`, `language`, `words`
 * (`[{word, start, end}]`) and `segments` (`[{start, end}]`), times in seconds, and for
 * speech to speech `instructions` and `ref_audio` (a reference voice's path). Speaker
 * turns are `turns` (`[{speaker, start, end}]`, seconds), or `speakers` with
 * `timestamps_start` and `timestamps_end`, or `rttm`, an RTTM file's path. Read
 * for prompts, `audio` is optional and a row may name its `voice`. Read line by line,
 * so a manifest of any length costs only its entries.
 */
export function manifestSource(file: string, columns: DatasetColumns, need: Need = 'audio'): DatasetSource {
  const manifest = resolve(file);
  const base = dirname(manifest);
  return {
    kind: 'jsonl',
    root: manifest,
    async *entries(problem) {
      const stream = createReadStream(manifest, { encoding: 'utf8' });
      const opened = new Promise<void>((ok, fail) => stream.once('ready', ok).once('error', fail));
      try {
        await opened;
      } catch (err) {
        throw new DatasetError(`${file}: cannot read the manifest (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
      let line = 0;
      let order = 0;
      for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
        line++;
        if (text.trim() === '') continue;
        try {
          const { rttm, ...row } = parseRow(text, base, columns, need, line);
          // A row's RTTM holds that row's recording, whatever file id it gives; its bad lines are reported in it.
          const turns = rttm === undefined ? row.turns : allTurns(await readRttm(rttm, problem));
          yield { ...row, ...(turns ? { turns } : {}), at: { file: manifest, line }, order: order++ };
        } catch (err) {
          problem({ file: manifest, line, reason: (err as Error).message });
        }
      }
    },
    audio: readAudioFiles,
  };
}

function parseRow(json: string, base: string, columns: DatasetColumns, need: Need, line: number): Omit<Entry, 'at' | 'order'> & { rttm?: string } {
  let row: unknown;
  try {
    row = JSON.parse(json);
  } catch (err) {
    throw new Error(`not valid JSON (${(err as Error).message})`);
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row)) throw new Error('must be a JSON object');
  const fields = row as Record<string, unknown>;
  const has = (name: string): boolean => name in fields;
  const key = (role: keyof DatasetColumns): string | undefined => pickColumn(role, columns, has);
  const string = (name: string | undefined, what: string): string | undefined => {
    const value = name === undefined ? undefined : fields[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new Error(`"${name}" (${what}) must be a string`);
    return value;
  };
  const audioKey = key('audio');
  const audio = string(audioKey, 'the audio path');
  if (!audio && need === 'audio') throw new Error(`no audio path: give each row an "audio" key, or name the key with ${COLUMN_FLAGS.audio}`);
  const path = audio ? resolve(base, audio) : base;
  const id = string(key('id'), 'the sample id') ?? (audio ? withoutExtension(isAbsolute(audio) ? relative(base, audio) : audio) : `line-${line}`);
  const text = string(key('text'), need === 'text' ? 'the text' : 'the reference text');
  const language = string(key('language'), 'the language');
  const instructions = string(pickField('instructions', has), 'the instructions');
  const reference = string(pickField('referenceAudio', has), 'the reference audio path');
  const voice = need === 'text' ? string('voice', 'the voice') : undefined;
  const rttm = need === 'audio' ? string('rttm', 'the RTTM path') : undefined;
  const turns = need === 'audio' ? turnsOfRow((name) => fields[name]) : undefined;
  return {
    id,
    split: string(pickField('split', has), 'the split') ?? 'default',
    text: text?.trim() ?? null,
    ...(language !== undefined ? { language } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(reference ? { referenceAudio: resolve(base, reference) } : {}),
    ...(voice !== undefined ? { voice } : {}),
    ...(fields.words !== undefined ? { words: parseWordTimings(fields.words, '"words"') } : {}),
    ...(fields.segments !== undefined ? { segments: parseSegments(fields.segments, '"segments"') } : {}),
    ...(turns ? { turns } : {}),
    ...(rttm ? { rttm: resolve(base, rttm) } : {}),
    path,
  };
}

function withoutExtension(path: string): string {
  return path.slice(0, path.length - extname(path).length);
}
