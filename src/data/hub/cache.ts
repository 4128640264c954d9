import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { defaultCacheDir } from '../../audio/prepared-cache.js';
import type { HubFile, RevisionInfo } from './api.js';

/**
 * Hub downloads on disk, per dataset and commit:
 * `datasets/<owner>/<name>/refs/<revision>` holds the commit a revision last resolved to
 * (what HF_HUB_OFFLINE=1 reads), `<commit>/snapshot.json` what that commit holds (its
 * card's configs, its Parquet files with sizes and sha256), and `<commit>/files/<path>`
 * a file read whole and checked, or `<path>.partial` with `<path>.partial.json`, the byte
 * ranges fetched so far (see `remote-file.ts`). A commit never changes, so nothing is
 * ever stale; clearing the folder is always safe.
 */
export class HubCache {
  constructor(readonly dir: string) {}

  async ref(id: string, revision: string): Promise<string | undefined> {
    return (await readFile(this.refPath(id, revision), 'utf8').catch(() => undefined))?.trim();
  }

  async setRef(id: string, revision: string, sha: string): Promise<void> {
    await writeWhole(this.refPath(id, revision), sha);
  }

  async snapshot(id: string, sha: string): Promise<Snapshot | undefined> {
    const text = await readFile(join(this.commitDir(id, sha), SNAPSHOT), 'utf8').catch(() => undefined);
    return text === undefined ? undefined : (JSON.parse(text) as Snapshot);
  }

  async setSnapshot(id: string, sha: string, snapshot: Snapshot): Promise<void> {
    await writeWhole(join(this.commitDir(id, sha), SNAPSHOT), JSON.stringify(snapshot));
  }

  /** Where a file of a commit is kept once read whole. */
  filePath(id: string, sha: string, path: string): string {
    return join(this.commitDir(id, sha), 'files', ...path.split('/'));
  }

  /** Every dataset commit held: its files read whole, those read in part, and the bytes on disk. */
  async list(): Promise<CachedCommit[]> {
    const root = join(this.dir, 'datasets');
    const names = await readdir(root, { recursive: true }).catch(() => [] as string[]);
    const commits: CachedCommit[] = [];
    for (const name of names.filter((n) => n.endsWith(`${sep}${SNAPSHOT}`)).sort()) {
      const parts = name.split(sep).slice(0, -1);
      const sha = parts.pop()!;
      const files = await readdir(join(root, ...parts, sha, 'files'), { recursive: true }).catch(() => [] as string[]);
      const commit: CachedCommit = { id: parts.join('/'), sha, whole: 0, partial: 0, bytes: 0 };
      for (const file of files) {
        const path = join(root, ...parts, sha, 'files', file);
        if (file.endsWith('.partial.json')) {
          commit.partial++;
          const ranges = (JSON.parse(await readFile(path, 'utf8').catch(() => '{}')) as { ranges?: Array<[number, number]> }).ranges ?? [];
          commit.bytes += ranges.reduce((sum, [start, end]) => sum + end - start, 0);
        } else if (file.endsWith('.parquet')) {
          commit.whole++;
          commit.bytes += (await stat(path).catch(() => ({ size: 0 }))).size;
        }
      }
      commits.push(commit);
    }
    return commits;
  }

  /** Removes every download (the `datasets` folder, nothing else). */
  async clear(): Promise<CachedCommit[]> {
    const held = await this.list();
    await rm(join(this.dir, 'datasets'), { recursive: true, force: true });
    return held;
  }

  private refPath(id: string, revision: string): string {
    return join(this.dir, 'datasets', ...id.split('/'), 'refs', encodeURIComponent(revision));
  }

  private commitDir(id: string, sha: string): string {
    return join(this.dir, 'datasets', ...id.split('/'), sha);
  }
}

/** What a commit holds, as far as a run needs it. */
export interface Snapshot {
  info: RevisionInfo;
  files: HubFile[];
}

export interface CachedCommit {
  id: string;
  sha: string;
  /** Files read whole and checked. */
  whole: number;
  /** Files of which only some byte ranges were needed so far. */
  partial: number;
  bytes: number;
}

const SNAPSHOT = 'snapshot.json';

/**
 * Where Hub downloads go beside the prepared-audio cache: `<cache-dir>/hub` for a
 * folder given with --cache-dir, else `$XDG_CACHE_HOME/voxbench/hub` (or
 * `~/.cache/voxbench/hub`); none under the Node test runner, like the prepared-audio cache.
 */
export function hubCacheDir(audioCacheDir: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (audioCacheDir !== undefined) return join(audioCacheDir, 'hub');
  const audio = defaultCacheDir(env);
  return audio === undefined ? undefined : join(dirname(audio), 'hub');
}

/** Writes a small file whole or not at all (a temporary file renamed into place). */
export async function writeWhole(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}
