import { DatasetError } from '../errors.js';

/** A Hub dataset as `--data` names it: `hf:<owner>/<name>`, or `hf://datasets/<owner>/<name>[@<revision>]`. */
export interface HubDatasetName {
  /** The repository id, `<owner>/<name>` (or a legacy `<name>`). */
  id: string;
  /** A revision the name carries (`hf://datasets/<id>@<revision>`). */
  revision?: string;
}

/** Whether `--data` names a Hub dataset rather than a path. */
export function isHubDataset(data: string): boolean {
  return data.startsWith('hf:');
}

/** Owner and name: letters, digits, `-`, `_` and `.`, as the Hub allows them. */
const REPO_ID = /^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/;

/** The dataset `data` names; a malformed one is a one-line error showing both forms. */
export function parseHubDataset(data: string): HubDatasetName {
  const url = /^hf:\/\/datasets\/([^@]+?)(?:@(.+))?$/.exec(data);
  const [id, revision] = url ? [url[1]!, url[2] !== undefined ? decodeURIComponent(url[2]) : undefined] : [data.slice('hf:'.length), undefined];
  if (!REPO_ID.test(id) || id.includes('..') || (data.startsWith('hf://') && !url)) {
    throw new DatasetError(`${data}: not a Hub dataset id; write hf:<owner>/<name> or hf://datasets/<owner>/<name>[@<revision>]`);
  }
  return { id, ...(revision !== undefined ? { revision } : {}) };
}
