import { cellText } from './columns.js';
import type { SpeakerTurn } from './dataset.js';
import { byStart, toMs } from './rttm.js';

/**
 * Reference speaker turns in a JSONL row or a table row: `turns`, a list of
 * `{speaker, start, end}` (seconds), or the three parallel lists the Hugging Face
 * diarization datasets use (`speakers`, `timestamps_start`, `timestamps_end`, seconds:
 * the layout of the `diarizers` recipes' datasets). `get` reads a field; undefined
 * when the row has none of them. Malformed fields throw, naming the field.
 */
export function turnsOfRow(get: (name: string) => unknown): SpeakerTurn[] | undefined {
  const listed = get('turns');
  if (listed !== undefined && listed !== null) return turnList(listed);
  const speakers = get('speakers');
  if (speakers === undefined || speakers === null) return undefined;
  return parallelTurns(list(speakers, 'speakers'), list(get('timestamps_start'), 'timestamps_start'), list(get('timestamps_end'), 'timestamps_end'));
}

/** The names a row's turns are read from, for a table's listing to read those columns. */
export const TURN_FIELDS = ['turns', 'speakers', 'timestamps_start', 'timestamps_end'] as const;

function turnList(value: unknown): SpeakerTurn[] {
  const shape = '"turns" must be a list of {"speaker", "start", "end"} with end >= start (seconds)';
  const turns = list(value, 'turns').map((item) => {
    const t = plain(item) as { speaker?: unknown; start?: unknown; end?: unknown } | null;
    const speaker = typeof t === 'object' && t !== null ? speakerName(t.speaker) : undefined;
    if (speaker === undefined || typeof t!.start !== 'number' || typeof t!.end !== 'number' || !(t!.start >= 0 && t!.end >= t!.start)) throw new Error(shape);
    return { speaker, startMs: toMs(t!.start), endMs: toMs(t!.end) };
  });
  return turns.sort(byStart);
}

function parallelTurns(speakers: unknown[], starts: unknown[], ends: unknown[]): SpeakerTurn[] {
  if (starts.length !== speakers.length || ends.length !== speakers.length) {
    throw new Error(
      `"speakers", "timestamps_start" and "timestamps_end" must be lists of one length (got ${speakers.length}, ${starts.length}, ${ends.length})`,
    );
  }
  return speakers
    .map((s, i) => {
      const [speaker, start, end] = [speakerName(s), Number(starts[i]), Number(ends[i])];
      if (speaker === undefined || !(start >= 0 && end >= start)) {
        throw new Error(`turn ${i + 1} of "speakers"/"timestamps_start"/"timestamps_end" must be a speaker name and seconds with end >= start >= 0`);
      }
      return { speaker, startMs: toMs(start), endMs: toMs(end) };
    })
    .sort(byStart);
}

/** A speaker label: a string (a table's may arrive as UTF-8 bytes) or a number, as text. */
function speakerName(value: unknown): string | undefined {
  const name = cellText(value);
  return name === undefined || name === '' ? undefined : name;
}

function list(value: unknown, field: string): unknown[] {
  const items = plain(value);
  if (!Array.isArray(items)) throw new Error(`"${field}" must be a list`);
  return items;
}

/** A table cell as plain JSON-like values: Arrow vectors and typed arrays as arrays, Arrow struct rows as objects. */
function plain(value: unknown): unknown {
  if (Array.isArray(value) || value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
  // An Arrow vector's toJSON is its items; a struct row's, its fields by name.
  const json = (value as { toJSON?: () => unknown } | null)?.toJSON;
  return typeof json === 'function' ? json.call(value) : value;
}
