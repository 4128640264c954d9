import { DatasetError } from '../errors.js';

/**
 * What voxbench asks of the Hugging Face Hub's HTTP API, through the official client
 * (`@huggingface/hub`), with the Hub's errors turned into one-line DatasetErrors. Routes:
 * - `GET /api/datasets/{id}/revision/{revision}`: the commit a revision resolves to, gating, the card's configs;
 * - `GET /api/datasets/{id}/tree/{commit}?recursive=true`: the files, with sizes and LFS sha256 (`Link` pages);
 * - `GET /datasets/{id}/resolve/{commit}/{path}`: a file's bytes, by `Range`.
 */

/** The Hub refused a request: the line to show, and the Hub's `X-Error-Code` (`RevisionNotFound` …). */
export class HubRefusal extends DatasetError {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** The standard variables of the Hub's own clients: HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE, HF_HUB_DISABLE_PROGRESS_BARS. */
export interface HubEnvironment {
  endpoint: string;
  /** Never printed, logged or written into a report. */
  token?: string;
  offline: boolean;
  quiet: boolean;
}

const TRUE = new Set(['1', 'on', 'yes', 'true']);

export function hubEnvironment(env: NodeJS.ProcessEnv): HubEnvironment {
  const token = env.HF_TOKEN || undefined;
  // The client refuses other tokens with a TypeError; this says which variable, without showing it.
  if (token !== undefined && !token.startsWith('hf_')) throw new DatasetError('HF_TOKEN does not hold a Hub access token (they start with hf_)');
  return {
    endpoint: (env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, ''),
    ...(token !== undefined ? { token } : {}),
    offline: TRUE.has((env.HF_HUB_OFFLINE ?? '').toLowerCase()),
    quiet: TRUE.has((env.HF_HUB_DISABLE_PROGRESS_BARS ?? '').toLowerCase()),
  };
}

/** The endpoint as messages show it: without any user and password it was given with. */
export function shownEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return endpoint;
  }
}

/** A config of the dataset card (`configs:` in README.md's YAML): its name and which files make each split. */
export interface CardConfig {
  config_name: string;
  default?: boolean;
  data_files?: string | string[] | Array<{ split: string; path: string | string[] }>;
}

/** What a revision resolves to. */
export interface RevisionInfo {
  /** The commit. */
  sha: string;
  gated: false | 'auto' | 'manual';
  configs: CardConfig[];
}

/** A Parquet file of a commit: its path, its size and, for an LFS file, its sha256. */
export interface HubFile {
  path: string;
  size: number;
  sha256?: string;
}

/** One dataset on one Hub, asked through the official client. */
export class HubApi {
  constructor(
    /** The dataset as messages name it (`hf:<id>`). */
    readonly label: string,
    readonly id: string,
    readonly env: HubEnvironment,
  ) {}

  /** The commit `revision` resolves to, and what the dataset card says at that commit. */
  async revision(revision: string): Promise<RevisionInfo> {
    const { datasetInfo } = await import('@huggingface/hub');
    const info = await this.ask(revision, (fetch) => datasetInfo({ name: this.id, revision, additionalFields: ['sha', 'cardData'], ...this.client(fetch) }));
    return { sha: info.sha, gated: info.gated, configs: info.cardData?.configs ?? [] };
  }

  /** Every Parquet file of a commit. */
  async parquetFiles(sha: string): Promise<HubFile[]> {
    const { listFiles } = await import('@huggingface/hub');
    return this.ask(sha, async (fetch) => {
      const files: HubFile[] = [];
      for await (const entry of listFiles({ repo: { type: 'dataset', name: this.id }, revision: sha, recursive: true, ...this.client(fetch) })) {
        if (entry.type !== 'file' || !entry.path.endsWith('.parquet')) continue;
        // Paths become cache paths: one that climbs out of its folder is refused.
        if (entry.path.startsWith('/') || entry.path.split('/').includes('..'))
          throw new DatasetError(`${this.label}: the Hub lists a file outside the repository (${entry.path})`);
        files.push({ path: entry.path, size: entry.size, ...(entry.lfs ? { sha256: entry.lfs.oid } : {}) });
      }
      return files.sort((a, b) => (a.path < b.path ? -1 : 1));
    });
  }

  /** A file of a commit as a lazily read blob: its slices are range requests. */
  async file(sha: string, path: string): Promise<Blob> {
    const { downloadFile } = await import('@huggingface/hub');
    const blob = await this.ask(sha, (fetch) => downloadFile({ repo: { type: 'dataset', name: this.id }, path, revision: sha, ...this.client(fetch) }));
    if (!blob) throw new DatasetError(`${this.label}: no file ${path} at commit ${sha}`);
    return blob;
  }

  private client(fetch: typeof globalThis.fetch): { hubUrl: string; fetch: typeof globalThis.fetch; accessToken?: string } {
    return { hubUrl: this.env.endpoint, fetch, ...(this.env.token !== undefined ? { accessToken: this.env.token } : {}) };
  }

  /** Runs a call of the client with a fetch that turns the Hub's refusals, and a missing network, into one-line errors. */
  private async ask<T>(revision: string, call: (fetch: typeof globalThis.fetch) => Promise<T>): Promise<T> {
    try {
      return await call(this.fetchFor(revision));
    } catch (err) {
      if (err instanceof DatasetError) throw err;
      throw new DatasetError(`${this.label}: unexpected answer from ${shownEndpoint(this.env.endpoint)} (${(err as Error).message})`);
    }
  }

  /** A fetch whose failures are DatasetErrors naming the dataset, the revision asked for, and what to do. */
  fetchFor(revision: string): typeof globalThis.fetch {
    return async (input, init) => {
      let response: Response;
      try {
        response = await fetch(input, init);
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new DatasetError(
          `${this.label}: cannot reach ${shownEndpoint(this.env.endpoint)} (${cause?.code ?? cause?.message ?? (err as Error).message}); check the network or HF_ENDPOINT, or set HF_HUB_OFFLINE=1 to read only what is cached`,
        );
      }
      if (response.ok) return response;
      await response.body?.cancel();
      throw new HubRefusal(this.refusal(response, revision), response.headers.get('x-error-code'));
    };
  }

  /** Why a gated dataset's files are refused, and what to do. */
  gated(): string {
    const page = `${shownEndpoint(this.env.endpoint)}/datasets/${this.id}`;
    return this.env.token === undefined
      ? `${this.label} is gated: accept its conditions at ${page}, then set HF_TOKEN to an access token of that account`
      : `${this.label} is gated, and the account of HF_TOKEN has no access to it: accept its conditions at ${page}`;
  }

  private refusal(response: Response, revision: string): string {
    const code = response.headers.get('x-error-code');
    if (code === 'GatedRepo') return this.gated();
    if (code === 'RepoNotFound' || (response.status === 401 && code === null)) {
      return `${this.label}: no such dataset on ${shownEndpoint(this.env.endpoint)}${this.env.token === undefined ? ' (a private one needs HF_TOKEN)' : ''}`;
    }
    if (code === 'RevisionNotFound') return `${this.label}: no revision "${revision}"; give a branch, tag or commit with --revision`;
    return `${this.label}: ${shownEndpoint(this.env.endpoint)} answered ${response.status}${code ? ` ${code}` : ''} to ${new URL(response.url || 'http://x/').pathname}`;
  }
}
