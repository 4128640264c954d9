import type { AsyncBuffer } from 'hyparquet';
import type { DatasetColumns, Need } from '../columns.js';
import type { HubOrigin } from '../dataset.js';
import { DatasetError } from '../errors.js';
import { parquetFilesSource, type ParquetFile } from '../parquet.js';
import type { DatasetSource } from '../source.js';
import { HubApi, hubEnvironment, HubRefusal, type HubEnvironment } from './api.js';
import { HubCache, hubCacheDir, type Snapshot } from './cache.js';
import { parseHubDataset } from './id.js';
import { chooseFiles, defaultConfig, placeFiles, type PlacedFile } from './layout.js';
import { terminalProgress } from './progress.js';
import { cachedFile, uncachedFile, type RemoteFile } from './remote-file.js';

/** How a Hub dataset is read: which config and revision, and where its downloads are kept. */
export interface HubOptions {
  /** The dataset's config (`--hf-config`); default its only one, or the one its card marks default. */
  config?: string;
  /** A branch, tag or commit (`--revision`); default main. */
  revision?: string;
  /** The folder downloads are kept in (default beside the prepared-audio cache, see `hubCacheDir`); false keeps nothing. */
  cacheDir?: string | false;
  /** Progress on stderr; default when stderr is a terminal. */
  progress?: boolean;
}

/** The branch the Hub keeps its Parquet conversion of a dataset on. */
const CONVERSION = 'refs/convert/parquet';

/**
 * A Hub dataset (`hf:<owner>/<name>`) as a Parquet source: its revision resolved to a
 * commit, the Parquet files of one config and split chosen (the repository's own, else
 * the Hub's conversion), each read by range through the download cache, so a run that
 * wants a few samples fetches the files' footers, the listed columns and the row
 * groups holding those samples, not the split.
 */
export async function hubSource(
  data: string,
  options: { split?: string; columns?: DatasetColumns; hub?: HubOptions },
  need: Need,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DatasetSource & { hub: HubOrigin }> {
  const name = parseHubDataset(data);
  const label = `hf:${name.id}`;
  const hub = options.hub ?? {};
  if (hub.revision !== undefined && name.revision !== undefined && hub.revision !== name.revision) {
    throw new DatasetError(`${data} names revision ${name.revision}, and --revision ${hub.revision}; give one`);
  }
  const asked = hub.revision ?? name.revision;
  const environment = hubEnvironment(env);
  const cacheDir = hub.cacheDir === false ? undefined : (hub.cacheDir ?? hubCacheDir(undefined, env));
  const cache = cacheDir === undefined ? undefined : new HubCache(cacheDir);
  if (environment.offline && !cache)
    throw new DatasetError(`HF_HUB_OFFLINE=1 reads ${label} from the download cache, and this run keeps none; give a cache folder`);
  const api = new HubApi(label, name.id, environment);
  const commits = new Commits(api, cache, environment);

  let revision = asked ?? 'main';
  let snapshot = await commits.resolve(revision);
  if (snapshot.files.length === 0) {
    if (asked !== undefined && asked !== 'main') {
      throw new DatasetError(`${label}: revision ${asked} has no Parquet files, and the Hub converts only main (${CONVERSION}); leave out the revision`);
    }
    revision = CONVERSION;
    snapshot = await commits.resolve(revision).catch((err: unknown) => {
      throw err instanceof HubRefusal && err.code === 'RevisionNotFound'
        ? new DatasetError(`${label} has no Parquet files, and the Hub has not converted it to Parquet`)
        : err;
    });
  }
  const sha = snapshot.info.sha;
  const chosen = chooseFiles(
    label,
    placeFiles(snapshot.files, snapshot.info.configs),
    { config: hub.config, split: options.split },
    defaultConfig(snapshot.info.configs),
  );
  const progress = terminalProgress(hub.progress, environment.quiet);
  const open = async (file: PlacedFile): Promise<AsyncBuffer> => {
    let blob: Promise<Blob> | undefined;
    const remote: RemoteFile = {
      label: `${label}/${file.path}`,
      size: file.size,
      ...(file.sha256 !== undefined ? { sha256: file.sha256 } : {}),
      // The client's probe of the file is made only when some bytes are not cached.
      fetch: async (start, end) => (await (blob ??= api.file(sha, file.path))).slice(start, end).stream(),
      ...(progress ? { progress } : {}),
    };
    return cache ? cachedFile(remote, cache.filePath(name.id, sha, file.path), environment.offline) : uncachedFile(remote);
  };
  const files = chosen.files.map((file): ParquetFile => {
    let opened: Promise<AsyncBuffer> | undefined;
    return { file: `hf://datasets/${name.id}@${sha}/${file.path}`, split: chosen.split, open: () => (opened ??= open(file)) };
  });
  return {
    ...parquetFilesSource(label, () => Promise.resolve(files), options.columns ?? {}, need),
    hub: { id: name.id, config: chosen.config, split: chosen.split, revision, commit: sha },
  };
}

/** Revisions resolved to commits and what each holds: online from the Hub (and kept), offline from the cache alone. */
class Commits {
  constructor(
    private readonly api: HubApi,
    private readonly cache: HubCache | undefined,
    private readonly env: HubEnvironment,
  ) {}

  async resolve(revision: string): Promise<Snapshot> {
    return this.env.offline ? this.cached(revision) : this.fetch(revision);
  }

  private async cached(revision: string): Promise<Snapshot> {
    const cache = this.cache!;
    const sha = (await cache.ref(this.api.id, revision)) ?? revision;
    const snapshot = await cache.snapshot(this.api.id, sha);
    if (!snapshot)
      throw new DatasetError(`HF_HUB_OFFLINE=1: ${this.api.label} at ${revision} is not in the download cache (${cache.dir}); run once with the network`);
    return snapshot;
  }

  private async fetch(revision: string): Promise<Snapshot> {
    const info = await this.api.revision(revision);
    // The Hub shows a gated dataset's card to anyone, and its files only to accounts it let in.
    if (info.gated && this.env.token === undefined) throw new DatasetError(this.api.gated());
    const snapshot = (await this.cache?.snapshot(this.api.id, info.sha)) ?? { info, files: await this.api.parquetFiles(info.sha) };
    await this.cache?.setSnapshot(this.api.id, info.sha, snapshot);
    await this.cache?.setRef(this.api.id, revision, info.sha);
    return snapshot;
  }
}
