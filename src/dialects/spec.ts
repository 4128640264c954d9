import type { IncomingHttpHeaders } from 'node:http';
import type { Task } from '../timeline/types.js';

/** How a dialect's server takes the API key; `plain`: the key itself in `Authorization`, with no scheme (AssemblyAI). */
export type AuthScheme = 'bearer' | 'token' | 'plain' | 'xi-api-key';

/**
 * What both sides know of a dialect, and nothing they run: the client's descriptor and
 * the simulated server's both spread it, so the server never imports client code.
 * Each dialect's `spec.ts` holds one; `dialects/index.ts` lists the client descriptors.
 */
export interface DialectSpec {
  /** Its `--protocol` name. */
  readonly name: string;
  readonly task: Task;
  /** HTTP dialects send one request per input (their targets are http:// URLs). */
  readonly transport: 'websocket' | 'http';
  /**
   * Its server's own WebSocket path, `{…}` marking a segment that varies (a voice id):
   * the client's default path, the proxy's and the simulated server's route to it.
   * Omitted where the path is shared (OpenAI Realtime's `/v1/realtime`, the HTTP endpoints).
   */
  readonly path?: string;
  /**
   * The `--target` scheme where it is not its transport's: `http` for a WebSocket dialect
   * whose session opens with an HTTP request first (Livepeer's app: its http:// URL).
   */
  readonly target?: 'http';
  readonly auth: AuthScheme;
  /**
   * The query parameter its service also takes a key or temporary token in, where clients
   * that cannot set headers put it (Speechmatics' SDK: `jwt`; ElevenLabs' browser client and
   * AssemblyAI's temporary tokens: `token`). The built-in server's `--api-key` accepts it there.
   */
  readonly keyQuery?: string;
  /** The model it names when none is given (the built-in server serves it). */
  readonly defaultModel: string;
  /** The environment variable its vendor's own clients read the key from, tried before VOXBENCH_API_KEY. */
  readonly keyEnv?: string;
  /** What its client cannot do, read before a run loads the client (the options are checked first). */
  readonly limits?: DialectLimits;
}

/** What a dialect cannot do, which `resolveSettings` refuses with a usage error naming it. */
export interface DialectLimits {
  /** One input per session, and why (appended to the message: `: its end of input closes the socket`). */
  readonly oneInputPerSession?: string;
  /** The only PCM rate it speaks at (`--output-rate`). */
  readonly outputRate?: number;
  /** Why the client must end every input (no server turn detection), for the message refusing `--turn-detection`. */
  readonly clientTurnsOnly?: string;
  /** The audio one message may carry, ms (`--chunk-ms`), and why (appended to the message refusing another). */
  readonly chunkMs?: { readonly min: number; readonly max: number; readonly why: string };
}

/** A WebSocket upgrade as a dialect is told by it: its URL (path and query) and headers. */
export interface Upgrade {
  readonly url: URL;
  readonly headers: IncomingHttpHeaders;
}

/** The headers a client sends its key in. */
export function authHeaders(scheme: AuthScheme, key: string): Record<string, string> {
  if (scheme === 'xi-api-key') return { 'xi-api-key': key };
  if (scheme === 'plain') return { authorization: key };
  return { authorization: scheme === 'token' ? `Token ${key}` : `Bearer ${key}` };
}

/**
 * Whether a request carries `key` as a server of this dialect takes it: in its header
 * (Deepgram takes `Bearer` as well as `Token`), or in its query parameter where it has one.
 */
export function keyAccepted(
  spec: Pick<DialectSpec, 'auth' | 'keyQuery'>,
  request: { headers: Readonly<Record<string, string | string[] | undefined>>; url?: URL },
  key: string,
): boolean {
  if (spec.keyQuery !== undefined && request.url?.searchParams.get(spec.keyQuery) === key) return true;
  return headerCarries(spec.auth, request.headers, key);
}

function headerCarries(scheme: AuthScheme, headers: Readonly<Record<string, string | string[] | undefined>>, key: string): boolean {
  if (scheme === 'xi-api-key') return headers['xi-api-key'] === key;
  if (scheme === 'plain') return headers.authorization === key;
  const accepted = scheme === 'token' ? [`Token ${key}`, `Bearer ${key}`] : [`Bearer ${key}`];
  return accepted.includes(String(headers.authorization ?? ''));
}

/** A dialect's `path` as a pattern: the whole path (the simulated server's route), or its end (the proxy's: a prefix before it is the deployment's). */
export function pathPattern(path: string, whole: boolean): RegExp {
  const source = path
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()[\]|\\/]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`${whole ? '^' : ''}${source}$`);
}
