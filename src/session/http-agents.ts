import http from 'node:http';
import https from 'node:https';

/**
 * The connections of one URL scheme: a keep-alive pool the run's sessions share, and an
 * agent that opens a new connection for every request, for a request sent again after
 * a pooled connection turned out to be dead (see http-runner.ts).
 */
export interface HttpAgents {
  pooled: http.Agent;
  fresh: http.Agent;
}

/** The run's agents, both schemes, with the TLS options of `https://` targets. */
export function httpAgents(tls: https.AgentOptions = {}): { of(url: string): HttpAgents; destroy(): void } {
  const schemes = {
    http: { pooled: new http.Agent({ keepAlive: true }), fresh: new http.Agent({ keepAlive: false }) },
    https: { pooled: new https.Agent({ keepAlive: true, ...tls }), fresh: new https.Agent({ keepAlive: false, ...tls }) },
  };
  return {
    of: (url) => (new URL(url).protocol === 'https:' ? schemes.https : schemes.http),
    destroy: () => {
      for (const { pooled, fresh } of Object.values(schemes)) {
        pooled.destroy();
        fresh.destroy();
      }
    },
  };
}
