import { hostServer, type RunningServer, type ServerOptions } from '../server/server.js';
import { SIMULATED_DIALECTS } from './registry.js';

/**
 * Starts the built-in simulated server: the host (src/server/) with every dialect's
 * simulated session handed to it, no GPU and no network needed.
 */
export function startServer(overrides: Partial<ServerOptions> = {}): Promise<RunningServer> {
  return hostServer(overrides, SIMULATED_DIALECTS);
}
