/** Which columns (Parquet, Arrow) or keys (JSONL) hold each field; unset ones are found by name. */
export interface DatasetColumns {
  audio?: string;
  text?: string;
  id?: string;
  language?: string;
}

export type ColumnRole = keyof DatasetColumns;

/** What a dataset is read for: recordings (audio required), or prompts (text required, audio not read). */
export type Need = 'audio' | 'text';

/**
 * Names datasets commonly use, tried in order (Hugging Face, NeMo and Common Voice
 * conventions, and vLLM-Omni's duplex eval rows: `id|sample_id|uid|name`,
 * `question_audio`, `question_text`).
 */
export const COLUMN_CANDIDATES: Record<ColumnRole, string[]> = {
  audio: ['audio', 'question_audio', 'audio_filepath', 'path', 'file'],
  text: ['text', 'sentence', 'transcription', 'transcript', 'normalized_text', 'question_text'],
  id: ['id', 'sample_id', 'uid', 'name'],
  language: ['language', 'locale', 'lang'],
};

export const COLUMN_FLAGS: Record<ColumnRole, string> = {
  audio: '--audio-column',
  text: '--text-column',
  id: '--id-column',
  language: '--language-column',
};

/**
 * A sample's other fields, found by these names in JSONL keys and table columns alike:
 * its split, and for speech to speech the agent's instructions and a reference voice
 * (vLLM-Omni's duplex eval rows).
 */
export const FIELD_CANDIDATES = {
  split: ['split'],
  instructions: ['instructions'],
  referenceAudio: ['ref_audio', 'reference_audio'],
} as const;

export type SampleField = keyof typeof FIELD_CANDIDATES;

/** The first name of `field`'s candidates that `has`. */
export function pickField(field: SampleField, has: (name: string) => boolean): string | undefined {
  return FIELD_CANDIDATES[field].find(has);
}

/** The column for `role`: the mapped name as given, else the first candidate that `has`. */
export function pickColumn(role: ColumnRole, mapping: DatasetColumns, has: (name: string) => boolean): string | undefined {
  return mapping[role] ?? COLUMN_CANDIDATES[role].find(has);
}

/** A table cell as text: strings as they are, numbers and bigints printed, unannotated bytes as UTF-8. */
export function cellText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  return undefined;
}
