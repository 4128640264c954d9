import { option, optionsError } from '../config/errors.js';
import type { ReportHeader } from '../report/report-header.js';
import type { RunConfig } from '../report/schema.js';

/**
 * Settings a resumed run may change: how far it goes (sessions, seconds), and what is
 * computed from the stored timelines (SLOs, prices, the normalizer, notes), and where the options came from (a file or flags), never how sessions ran.
 */
const MAY_DIFFER: readonly string[] = [
  'maxSessions',
  'maxSeconds',
  'slos',
  'pricing',
  'normalizer',
  'diarization',
  'meta',
  'configFile',
] satisfies (keyof RunConfig)[];

/**
 * Refuses to resume the run recorded in `header` with other settings: its sessions
 * and the new ones would make one report of two different runs. Names the first
 * setting that differs, as a path into the report's `config` (or its dataset).
 */
export function checkResumable(dir: string, header: ReportHeader | undefined, config: RunConfig, fingerprint: string): void {
  if (header?.config === undefined) throw optionsError`${option('resume')} ${dir}: no readable report.json there to check the run's settings against`;
  // The built-in server listens on a new port each run.
  const ignored = new Set([...MAY_DIFFER, ...(config.builtInServer && header.config.builtInServer ? ['target'] : [])]);
  const comparable = (settings: RunConfig, datasetFingerprint: unknown): Record<string, unknown> => ({
    ...Object.fromEntries(Object.entries(settings).filter(([key]) => !ignored.has(key))),
    dataset: { fingerprint: datasetFingerprint },
  });
  const differs = firstDifference(comparable(header.config, header.dataset?.fingerprint), comparable(config, fingerprint), '');
  if (differs)
    throw optionsError`${option('resume')} ${dir}: the run there has another ${differs.path} (${differs.there} there, ${differs.now} now); resume with ${option('the same options', 'same-options')}, or start a new run`;
}

function firstDifference(there: unknown, now: unknown, path: string): { path: string; there: string; now: string } | undefined {
  if (isObject(there) && isObject(now)) {
    for (const key of new Set([...Object.keys(there), ...Object.keys(now)])) {
      const found = firstDifference(there[key], now[key], path ? `${path}.${key}` : key);
      if (found) return found;
    }
    return undefined;
  }
  return JSON.stringify(there) === JSON.stringify(now) ? undefined : { path, there: shown(there), now: shown(now) };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value short enough for one line. */
function shown(value: unknown): string {
  const text = value === undefined ? 'none' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
