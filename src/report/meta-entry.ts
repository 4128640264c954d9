/** `--meta` entries, apart from the record they go into so that a command checks them before it loads the report's code. */
import type { RecordValue } from './schema.js';

/** Parses `section.key=value` (or `key=value`, for deployment); numbers stay numbers. */
export function parseMetaEntry(entry: string): { section: string; key: string; value: RecordValue } | null {
  const match = /^(?:([a-z_]+)\.)?([A-Za-z0-9_.-]+)=(.*)$/.exec(entry);
  if (!match) return null;
  const [, section = 'deployment', key, raw] = match;
  const value = raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw!;
  return { section, key: key!, value };
}
