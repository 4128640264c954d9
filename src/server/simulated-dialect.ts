import type WebSocket from 'ws';
import type { DialectSpec } from '../dialects/spec.js';
import type { SessionContext } from './session-context.js';

/**
 * The simulated side of a dialect with a WebSocket path of its own: its shared spec
 * (path, auth) and the session that speaks it. It lives beside the dialect's client
 * code but imports only its spec and the server, never the client.
 */
export interface SimulatedDialect extends DialectSpec {
  readonly path: string;
  /** Serves one accepted connection; `url` is its upgrade's (the query carries its settings). */
  open(ws: WebSocket, ctx: SessionContext, url: URL): void;
}
