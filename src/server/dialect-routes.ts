import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathPattern, type Upgrade } from '../dialects/spec.js';
import type { RequestContext, SimulatedDialect } from './simulated-dialect.js';

/** OpenAI Realtime's path, which vLLM, OpenAI and vLLM-Omni's duplex share: each upgrade's query and headers tell them apart. */
export const REALTIME_PATH = '/v1/realtime';

/** How the host finds the dialect of an upgrade or a request among those it was handed. */
export interface DialectRoutes {
  /** The dialect an upgrade speaks: the one whose own path it is, or on the shared path the first to claim it; undefined on any other path. */
  dialectOf(upgrade: Upgrade): SimulatedDialect | undefined;
  /** Serves an HTTP request a dialect has routes of its own for (`SimulatedDialect.request`); whether one did. */
  request(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): boolean;
  /** The PCM rates the dialects hear audio at, each once: the server indexes its references at each. */
  inputRates: readonly number[];
}

/**
 * A dialect with a path of its own is told by it; those on the shared path are asked in
 * the order given (`onSharedPath`), the first yes winning.
 */
export function dialectRoutes(dialects: readonly SimulatedDialect[]): DialectRoutes {
  const routes = dialects.flatMap((dialect) =>
    [dialect.path, dialect.aliasPath].flatMap((path) => (path !== undefined ? [{ dialect, path: pathPattern(path, true) }] : [])),
  );
  return {
    dialectOf(upgrade) {
      const { pathname } = upgrade.url;
      const own = routes.find((route) => route.path.test(pathname))?.dialect;
      if (own !== undefined || pathname !== REALTIME_PATH) return own;
      return dialects.find((dialect) => dialect.onSharedPath?.(upgrade));
    },
    request: (req, res, ctx) => dialects.some((dialect) => dialect.request?.(req, res, ctx) === true),
    inputRates: [...new Set(dialects.flatMap((dialect) => (dialect.inputRate !== undefined ? [dialect.inputRate] : [])))],
  };
}
