/**
 * A local stand-in for the Hugging Face Hub's HTTP API, answering the routes voxbench
 * relies on as the Hub does (see src/data/hub/api.ts), on a free loopback port:
 * - `GET /api/datasets/{id}/revision/{revision}`: `{_id, id, sha, gated, private, cardData}`;
 * - `GET /api/datasets/{id}/tree/{revision}?recursive=true`: `[{type, path, size, oid, lfs}]`,
 *   paged with `Link: <…>; rel="next"`;
 * - `GET /datasets/{id}/resolve/{revision}/{path}`: the bytes, honouring `Range` (206 with
 *   `Content-Range`), with `ETag`, `X-Repo-Commit` and `X-Linked-Size`.
 * Refusals carry `X-Error-Code` as the Hub's do: `RepoNotFound`, `RevisionNotFound`,
 * `EntryNotFound` (404), `GatedRepo` (401 without the dataset's token). It counts the
 * file bytes it sends, per path, so tests can tell what a run downloaded.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';

export interface HubCommit {
  files: Record<string, Uint8Array>;
  /** The dataset card's `configs`. */
  configs?: unknown[];
  /** Bytes sent in place of a committed file's (a transfer that damaged it); the listing still describes the committed ones. */
  damaged?: Record<string, Uint8Array>;
}

export interface HubRepo {
  /** Branches and tags by name (`main`, `refs/convert/parquet`), each a commit sha. */
  refs: Record<string, string>;
  commits: Record<string, HubCommit>;
  /** A gated dataset's files are sent only with this token. */
  gatedToken?: string;
}

export interface TestHub {
  url: string;
  /** File bytes sent, by `{id}/{path}`, not counting the client's one-byte probes (`Range: bytes=0-0`) of a file's size. */
  sent: Map<string, number>;
  /** Every request's method and path, in order. */
  requests: string[];
  /** Cuts the next response for `{id}/{path}` longer than this many body bytes after that many. */
  cutNext: Map<string, number>;
  close(): Promise<void>;
}

/** Tree listings page after this many entries (the Hub's pages are larger; small here so paging is exercised). */
const PAGE = 2;

export async function startTestHub(repos: Record<string, HubRepo>): Promise<TestHub> {
  const sent = new Map<string, number>();
  const requests: string[] = [];
  const cutNext = new Map<string, number>();
  const refuse = (res: ServerResponse, status: number, code: string, message: string): void => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'X-Error-Code': code }).end(JSON.stringify({ error: message }));
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url!, 'http://hub');
    requests.push(`${req.method} ${url.pathname}`);
    const api = /^\/api\/datasets\/(.+?)\/(revision|tree)\/(.+)$/.exec(url.pathname);
    const file = /^\/datasets\/(.+?)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const match = api ?? file;
    if (!match) return refuse(res, 404, 'RepoNotFound', 'no such route');
    const id = [...Object.keys(repos)].find((name) => match[1] === name);
    const repo = id === undefined ? undefined : repos[id]!;
    if (!repo) return refuse(res, 401, 'RepoNotFound', 'Repository not found');
    // The client encodes a revision in some routes (refs%2Fconvert%2Fparquet) and not in others.
    const rawRevision = decodeURIComponent(api ? api[3]! : file![2]!);
    const revision =
      api?.[2] === 'tree'
        ? Object.keys(repo.refs)
            .concat(Object.keys(repo.commits))
            .find((r) => rawRevision === r || rawRevision.startsWith(`${r}/`))
        : rawRevision;
    const sha = revision === undefined ? undefined : (repo.refs[revision] ?? (repo.commits[revision] ? revision : undefined));
    if (sha === undefined) return refuse(res, 404, 'RevisionNotFound', `Invalid rev id: ${rawRevision}`);
    const commit = repo.commits[sha]!;
    if (api?.[2] === 'revision') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          _id: `id-${id}`,
          id,
          sha,
          gated: repo.gatedToken ? 'auto' : false,
          private: false,
          cardData: commit.configs ? { configs: commit.configs } : {},
        }),
      );
      return;
    }
    if (api?.[2] === 'tree') {
      const entries = Object.entries(commit.files).map(([path, bytes]) => ({
        type: 'file',
        path,
        size: bytes.length,
        oid: createHash('sha1').update(bytes).digest('hex'),
        lfs: { oid: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, pointerSize: 130 },
      }));
      const cursor = Number(url.searchParams.get('cursor') ?? 0);
      const next = cursor + PAGE < entries.length ? new URL(url) : undefined;
      next?.searchParams.set('cursor', String(cursor + PAGE));
      res.writeHead(200, {
        'Content-Type': 'application/json',
        ...(next ? { Link: `<http://${req.headers.host}${next.pathname}${next.search}>; rel="next"` } : {}),
      });
      res.end(JSON.stringify(entries.slice(cursor, cursor + PAGE)));
      return;
    }
    const path = file![3]!;
    const bytes = commit.damaged?.[path] ?? commit.files[path];
    if (!bytes) return refuse(res, 404, 'EntryNotFound', `${path} does not exist`);
    if (repo.gatedToken && req.headers.authorization !== `Bearer ${repo.gatedToken}`) {
      return refuse(res, 401, 'GatedRepo', `Access to dataset ${id} is restricted. You must have access to it and be authenticated to access it.`);
    }
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range && range[2] !== '' ? Math.min(Number(range[2]) + 1, bytes.length) : bytes.length;
    const body = bytes.subarray(start, end);
    const headers = {
      ETag: `"${createHash('sha1').update(bytes).digest('hex')}"`,
      'X-Repo-Commit': sha,
      'X-Linked-Size': String(bytes.length),
      'Content-Type': 'application/octet-stream',
    };
    res.writeHead(range ? 206 : 200, {
      ...headers,
      'Content-Length': String(body.length),
      ...(range ? { 'Content-Range': `bytes ${start}-${end - 1}/${bytes.length}` } : {}),
    });
    const key = `${id}/${path}`;
    const cut = (cutNext.get(key) ?? Infinity) < body.length ? cutNext.get(key) : undefined;
    if (cut !== undefined) cutNext.delete(key);
    const part = cut === undefined ? body : body.subarray(0, cut);
    if (req.headers.range !== 'bytes=0-0') sent.set(key, (sent.get(key) ?? 0) + part.length);
    if (cut === undefined) return void res.end(part);
    res.write(part, () => res.destroy());
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  after(close);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent, requests, cutNext, close };
}
